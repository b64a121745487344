package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestGotoWithWrites(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: []string{"c"}}, nil
		}, graph.WithDestinations("b", "c")).
		AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a")
	c := mustCompile(t, g)
	out, err := c.Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, out.Trail)
	require.Contains(t, c.Mermaid(), "\ta -.-> c;")
}

// Mirrors LangGraph's Command(goto=...) semantics (test_command_goto_*,
// "goto is in addition to static edges"): a node's goto and its static
// edges are both followed; goto END adds nothing and does not cut the
// static edges.
func TestGotoIsFollowedBesideStaticEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		to   []string
		want []string
	}{
		{"goto a node", []string{"c"}, []string{"a", "b", "c"}},
		{"goto End", []string{graph.End}, []string{"a", "b"}},
		{"goto a node and End", []string{graph.End, "c"}, []string{"a", "b", "c"}},
		{"goto the static target", []string{"b"}, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
					return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: tc.to}, nil
				}, graph.WithDestinations("c", graph.End)).
				AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
				AddEdge(graph.Start, "a").AddEdge("a", "b")
			out, err := mustCompile(t, g).Invoke(t.Context(), zero)
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Trail)
			require.LessOrEqual(t, cs.get("b"), 1)
		})
	}
	// goto End from a node without edges ends the run.
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: []string{graph.End}}, nil
		}, graph.WithDestinations(graph.End)).
		AddEdge(graph.Start, "a")
	out, err := mustCompile(t, g).Invoke(t.Context(), zero)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, out.Trail)
}

// WithDestinations' documentation allows a Goto to "a target of the node's
// edges": a conditional edge's declared targets are such targets.
func TestGotoToAConditionalEdgeTargetIsAllowed(t *testing.T) {
	t.Parallel()
	router := func(ctx context.Context, s counter) (graph.Route[counter], error) {
		return graph.Route[counter]{To: []string{graph.End}}, nil
	}
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Goto: []string{"b"}}, nil
		}, graph.WithDestinations("c")).
		AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", router, "b", graph.End)
	c := mustCompile(t, g)
	out, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, out.Trail)
}

// A node that declares its destinations may goto or send only to them, to
// the targets of its edges, or to End; anything else fails the step like a
// router's undeclared target. Without a declaration any node is allowed.
func TestGotoAndSendsStayWithinDeclaredDestinations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		declared []string
		upd      state.Update[counter]
		wantErr  string
	}{
		{"declared goto", []string{"c"}, state.Update[counter]{Goto: []string{"c"}}, ""},
		{"goto an edge target", []string{"c"}, state.Update[counter]{Goto: []string{"b"}}, ""},
		{"goto End", []string{"c"}, state.Update[counter]{Goto: []string{graph.End}}, ""},
		{"undeclared goto", []string{"c"}, state.Update[counter]{Goto: []string{"d"}}, `goto "d", which is not among the node's declared destinations`},
		{"undeclared send", []string{"c"}, state.Update[counter]{Sends: []graph.Send[counter]{graph.SendTo("d", counter{})}}, `send to "d", which is not among`},
		{"nothing declared", nil, state.Update[counter]{Goto: []string{"d"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var opts []graph.NodeOption
			if c.declared != nil {
				opts = append(opts, graph.WithDestinations(c.declared...))
			}
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) { return c.upd, nil }, opts...).
				AddNode("b", visit("b")).AddNode("c", visit("c")).AddNode("d", visit("d")).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge(graph.Start, "c").AddEdge(graph.Start, "d")
			_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
			if c.wantErr == "" {
				require.NoError(t, err)
				return
			}
			var re *graph.RouteError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "a", re.Node)
			require.ErrorIs(t, err, graph.ErrInvalidRoute)
			require.ErrorContains(t, err, c.wantErr)
		})
	}
}
