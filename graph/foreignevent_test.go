package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// relay is a node that relays a foreign graph's events, in the modes the
// run forwards, and records those modes.
func relay(modes *graph.Mode) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		*modes = graph.SubgraphModes(ctx)
		graph.EmitForeign(ctx, graph.ForeignEvent{Mode: graph.Updates, Node: "far", Payload: "u1"})
		graph.EmitForeign(ctx, graph.ForeignEvent{Mode: graph.Custom, Namespace: "sub:1", Custom: "c1", Payload: "c1"})
		graph.EmitForeign(ctx, graph.ForeignEvent{Mode: graph.Messages, Chunk: []byte("tok"), MessageID: "m1", Payload: "m1"})
		graph.EmitForeign(ctx, graph.ForeignEvent{Mode: graph.Values, Payload: "v1"})
		return state.Writes(trailField.Set([]string{"relay"})), nil
	}
}

func TestForeignEventsComeUnderTheNodesNamespaceWithSubgraphs(t *testing.T) {
	t.Parallel()
	var modes graph.Mode
	app, err := graph.New(schema).AddNode("relay", relay(&modes)).
		AddEdge(graph.Start, "relay").AddEdge("relay", graph.End).Compile()
	require.NoError(t, err)

	type seen struct {
		mode      graph.Mode
		ns, node  string
		nested    any
		custom    any
		chunk     string
		messageID string
	}
	var got []seen
	var task string
	for ev, err := range app.Stream(context.Background(), state.Update[counter]{},
		graph.StreamModes(graph.Updates|graph.Custom|graph.Messages), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Namespace == "" {
			task = ev.TaskID
		}
		got = append(got, seen{ev.Mode, ev.Namespace, ev.Node, ev.Nested, ev.Custom, string(ev.Chunk), ev.MessageID})
	}
	require.Equal(t, graph.Updates|graph.Custom|graph.Messages, modes)
	ns := "relay:" + task
	require.Equal(t, []seen{
		{mode: graph.Updates, ns: ns, node: "far", nested: "u1"},
		{mode: graph.Custom, ns: ns + "|sub:1", nested: "c1", custom: "c1"},
		{mode: graph.Messages, ns: ns, nested: "m1", chunk: "tok", messageID: "m1"},
		{mode: graph.Updates, ns: "", node: "relay"},
	}, got, "the values event is not among the run's modes")
}

func TestForeignEventsAreDroppedWithoutSubgraphs(t *testing.T) {
	t.Parallel()
	var modes graph.Mode
	app, err := graph.New(schema).AddNode("relay", relay(&modes)).
		AddEdge(graph.Start, "relay").AddEdge("relay", graph.End).Compile()
	require.NoError(t, err)
	var got []string
	for ev, err := range app.Stream(context.Background(), state.Update[counter]{}, graph.StreamModes(graph.Updates|graph.Custom)) {
		require.NoError(t, err)
		got = append(got, ev.Mode.String()+" "+ev.Node)
	}
	require.Zero(t, modes)
	require.Equal(t, []string{"updates relay"}, got)

	// Invoke streams nothing: the node is told so.
	modes = graph.Values
	_, err = app.Invoke(context.Background(), state.Update[counter]{})
	require.NoError(t, err)
	require.Zero(t, modes)
	require.Zero(t, graph.SubgraphModes(context.Background()), "outside a node")
	graph.EmitForeign(context.Background(), graph.ForeignEvent{Mode: graph.Custom}) // does nothing
}

// TestForeignEventsOfANestedNodeCarryBothNamespaces puts the relaying
// node in a subgraph over another state type: its events reach the
// parent under the subgraph's namespace, then the node's.
func TestForeignEventsOfANestedNodeCarryBothNamespaces(t *testing.T) {
	t.Parallel()
	var modes graph.Mode
	child, err := graph.New(schema).AddNode("relay", relay(&modes)).
		AddEdge(graph.Start, "relay").AddEdge("relay", graph.End).Compile()
	require.NoError(t, err)
	type outer struct{ Trail []string }
	outerTrail := state.Append("trail", func(o *outer) *[]string { return &o.Trail })
	parent := graph.New(state.NewSchema(outerTrail))
	graph.AddSubgraphMapped(parent, "sub", child,
		func(outer) state.Update[counter] { return state.Update[counter]{} },
		func(o outer, c counter) state.Update[outer] { return state.Writes(outerTrail.Set(c.Trail)) })
	app, err := parent.AddEdge(graph.Start, "sub").AddEdge("sub", graph.End).Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)

	var customs []string
	var nested []any
	var subTask string
	for ev, err := range app.Stream(context.Background(), state.Update[outer]{}, graph.WithThread("t"),
		graph.StreamModes(graph.Custom|graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Mode == graph.Updates && ev.Namespace == "" {
			subTask = ev.TaskID
		}
		if ev.Mode == graph.Custom {
			customs = append(customs, ev.Namespace)
			nested = append(nested, ev.Custom)
		}
	}
	require.Len(t, customs, 1)
	require.Regexp(t, `^sub:`+subTask+`\|relay:[^|]+\|sub:1$`, customs[0])
	require.Equal(t, []any{"c1"}, nested)
}
