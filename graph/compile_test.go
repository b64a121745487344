package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestCompileValidation(t *testing.T) {
	t.Parallel()
	route := graph.Choose(func(ctx context.Context, s counter) (string, error) { return graph.End, nil })
	cases := []struct {
		name  string
		build func() *graph.StateGraph[counter]
		want  []string
	}{
		{"no entry point", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a"))
		}, []string{"no entry point"}},
		{"unknown edge target", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge("a", "ghost")
		}, []string{`edge "a" -> "ghost": unknown target node "ghost"`}},
		{"unknown edge source", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge("ghost", "a")
		}, []string{`unknown source node "ghost"`}},
		{"unreachable node", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddNode("island", visit("i")).AddEdge(graph.Start, "a")
		}, []string{`node "island" is unreachable`}},
		{"duplicate node", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddNode("a", visit("a")).AddEdge(graph.Start, "a")
		}, []string{`node "a" is added twice`}},
		{"reserved names", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode(graph.Start, visit("s")).AddNode(graph.End, visit("e")).AddNode("__x", visit("x")).AddNode("a:b", visit("x")).AddNode("", visit("x"))
		}, []string{`"__start__" is reserved`, `"__end__" is reserved`, `"__x" is invalid`, `"a:b" is invalid`, `"" is invalid`}},
		{"nil function", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", nil).AddEdge(graph.Start, "a")
		}, []string{`node "a" has a nil function`}},
		{"router target unknown", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddConditionalEdges("a", route, "ghost", graph.End)
		}, []string{`conditional edges from "a": unknown target node "ghost"`}},
		{"router without targets", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddConditionalEdges("a", route)
		}, []string{`declare the router's possible targets`}},
		{"path map to unknown node", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddConditionalEdgesMap("a", route, map[string]string{"go": "ghost"})
		}, []string{`unknown target node "ghost"`}},
		{"join with unknown source", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddNode("j", visit("j")).AddEdge(graph.Start, "a").AddJoin([]string{"a", "ghost"}, "j")
		}, []string{`unknown source node "ghost"`}},
		{"edge out of End", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge(graph.End, "a")
		}, []string{"End has no outgoing edges"}},
		{"edge into Start", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a").AddEdge("a", graph.Start)
		}, []string{"Start has no incoming edges"}},
		{"unknown destination", func() *graph.StateGraph[counter] {
			return graph.New(schema).AddNode("a", visit("a"), graph.WithDestinations("ghost")).AddEdge(graph.Start, "a")
		}, []string{`node "a": unknown destination "ghost"`}},
		{"bad schema", func() *graph.StateGraph[counter] {
			dup := state.Value("n", func(s *counter) *int { return &s.Total })
			return graph.New(state.NewSchema(nField, dup)).AddNode("a", visit("a")).AddEdge(graph.Start, "a")
		}, []string{`field name "n" is declared twice`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.build().Compile()
			require.ErrorIs(t, err, graph.ErrInvalidGraph)
			for _, w := range c.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestCompileRejectsUnknownInterruptNode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a")
	_, err := g.Compile(graph.WithInterruptBefore("ghost"))
	require.ErrorContains(t, err, `interrupt at unknown node "ghost"`)
}
