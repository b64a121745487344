package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// The parent and subgraph states of LangGraph's "subgraph with a
// different state schema" guide: the parent has foo, the subgraph bar and
// baz; no field is shared.
type parentFoo struct{ Foo string }

type subBar struct {
	Bar string
	Baz string
}

var (
	pFooField = state.Value("foo", func(s *parentFoo) *string { return &s.Foo })
	pFooSc    = state.NewSchema(pFooField)
	barField  = state.Value("bar", func(s *subBar) *string { return &s.Bar })
	bazField  = state.Value("baz", func(s *subBar) *string { return &s.Baz })
	barSc     = state.NewSchema(barField, bazField)
)

func toSub(p parentFoo) state.Update[subBar] { return state.Writes(barField.Set(p.Foo)) }

func fromSub(_ parentFoo, s subBar) state.Update[parentFoo] {
	return state.Writes(pFooField.Set(s.Bar))
}

// mappedApp is the guide's graph: node_1 → node_2 (the subgraph:
// subgraph_node_1 → subgraph_node_2), with ask, when set, interrupting in
// the subgraph between its nodes.
func mappedApp(t *testing.T, ask bool, opts ...graph.CompileOption) *graph.Compiled[parentFoo] {
	t.Helper()
	sb := graph.New(barSc).
		AddNode("subgraph_node_1", func(ctx context.Context, s subBar) (state.Update[subBar], error) {
			return state.Writes(bazField.Set("baz")), nil
		}).
		AddNode("subgraph_node_2", func(ctx context.Context, s subBar) (state.Update[subBar], error) {
			suffix := s.Baz
			if ask {
				v, err := graph.Interrupt[string](ctx, "suffix?")
				if err != nil {
					return state.Update[subBar]{}, err
				}
				suffix = v
			}
			return state.Writes(barField.Set(s.Bar + suffix)), nil
		}).
		AddEdge(graph.Start, "subgraph_node_1").AddEdge("subgraph_node_1", "subgraph_node_2")
	sub, err := sb.Compile()
	require.NoError(t, err)
	g := graph.New(pFooSc).
		AddNode("node_1", func(ctx context.Context, s parentFoo) (state.Update[parentFoo], error) {
			return state.Writes(pFooField.Set("hi! " + s.Foo)), nil
		})
	graph.AddSubgraphMapped(g, "node_2", sub, toSub, fromSub)
	g.AddEdge(graph.Start, "node_1").AddEdge("node_1", "node_2")
	c, err := g.Compile(opts...)
	require.NoError(t, err)
	return c
}

// Mirrors the guide's expected output: {"foo": "hi! foobaz"}, the
// subgraph's updates streamed with its namespace, typed as its own
// state's events (Event.Nested), and drawn as a subgraph block.
func TestSubgraphOverAnotherStateTypeMapsInAndOut(t *testing.T) {
	t.Parallel()
	app := mappedApp(t, false)
	out, err := app.Invoke(t.Context(), state.Writes(pFooField.Set("foo")))
	require.NoError(t, err)
	require.Equal(t, parentFoo{Foo: "hi! foobaz"}, out)

	var nested []string
	var parent []string
	for ev, err := range app.Stream(t.Context(), state.Writes(pFooField.Set("foo")), graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Nested == nil {
			parent = append(parent, ev.Node)
			continue
		}
		sev, ok := ev.Nested.(graph.Event[subBar])
		require.True(t, ok, "a nested event is an Event[subBar], got %T", ev.Nested)
		require.True(t, strings.HasPrefix(sev.Namespace, "node_2:"), sev.Namespace)
		nested = append(nested, sev.Node)
	}
	require.Equal(t, []string{"subgraph_node_1", "subgraph_node_2"}, nested)
	require.Equal(t, []string{"node_1", "node_2"}, parent)
	require.Contains(t, app.Mermaid(), "subgraph_node_1")
}

// The mapped subgraph stops at an interrupt inside it like any subgraph:
// the parent's task carries the interrupt, State WithSubgraphs gives it
// the subgraph's *Snapshot[subBar], and the resume continues the
// subgraph from its checkpoint (its input is not applied again).
func TestSubgraphOverAnotherStateTypeInterruptsAndResumes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	app := mappedApp(t, true, graph.WithCheckpointer(memory.New()))
	th := graph.WithThread("t")
	_, err := app.Invoke(ctx, state.Writes(pFooField.Set("foo")), th)
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "subgraph_node_2", ie.Interrupts[0].Node)

	snap, err := app.State(ctx, th, graph.WithSubgraphs())
	require.NoError(t, err)
	require.Equal(t, []string{"node_2"}, snap.Next)
	sub, ok := snap.Tasks[0].State.(*graph.Snapshot[subBar])
	require.True(t, ok, "got %T", snap.Tasks[0].State)
	require.Equal(t, subBar{Bar: "hi! foo", Baz: "baz"}, sub.Values)
	require.Equal(t, []string{"subgraph_node_2"}, sub.Next)
	require.Equal(t, snap.Tasks[0].Namespace, sub.Config.Namespace)
	_, err = app.State(ctx, th, graph.WithNamespace(snap.Tasks[0].Namespace))
	require.ErrorContains(t, err, "another state type", "read it through TaskInfo.State")

	out, err := app.Invoke(ctx, state.Update[parentFoo]{}, th, graph.Resume("!"))
	require.NoError(t, err)
	require.Equal(t, parentFoo{Foo: "hi! foo!"}, out)
}

func TestSubgraphMappedNeedsItsFunctions(t *testing.T) {
	t.Parallel()
	sub, err := graph.New(barSc).AddNode("x", func(ctx context.Context, s subBar) (state.Update[subBar], error) {
		return state.Update[subBar]{}, nil
	}).AddEdge(graph.Start, "x").Compile()
	require.NoError(t, err)
	g := graph.New(pFooSc)
	graph.AddSubgraphMapped(g, "s", sub, nil, fromSub)
	graph.AddSubgraphMapped[parentFoo, subBar](g, "t", nil, toSub, fromSub)
	_, err = g.AddEdge(graph.Start, "s").Compile()
	require.ErrorContains(t, err, `subgraph "s": the input and output mapping functions must not be nil`)
	require.ErrorContains(t, err, `subgraph "t" is nil`)
}
