package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// bulkApp is test_bulk_state_updates' graph: START → node_a → node_b,
// node_a writing foo (my_key) and node_b baz (my_other_key).
func bulkApp(t *testing.T) *graph.Compiled[nestedKeys] {
	t.Helper()
	c, err := graph.New(nestedSc).
		AddNode("node_a", keyNode(func(nestedKeys) []state.Write[nestedKeys] { return []state.Write[nestedKeys]{myKey.Set("bar")} })).
		AddNode("node_b", keyNode(func(nestedKeys) []state.Write[nestedKeys] { return []state.Write[nestedKeys]{myOtherKey.Set("qux")} })).
		AddNode("check", keyNode(func(nestedKeys) []state.Write[nestedKeys] { return nil })).
		AddEdge(graph.Start, "node_a").AddEdge("node_a", "node_b").
		AddConditionalEdges("node_b", graph.Choose(func(ctx context.Context, s nestedKeys) (string, error) {
			if s.MyKey == "fail" {
				return "", errors.New("the router refuses fail")
			}
			return graph.End, nil
		}), "check", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return c
}

func up(asNode string, ws ...state.Write[nestedKeys]) graph.StateUpdate[nestedKeys] {
	return graph.StateUpdate[nestedKeys]{Update: state.Writes(ws...), AsNode: asNode}
}

// Mirrors test_bulk_state_updates: each superstep is one "update"
// checkpoint (2, then 1, then 2 more: 2, 3, 5 in the history), the
// updates of one superstep apply together, each as its node, and the
// values are LangGraph's.
func TestBulkUpdateStateSavesACheckpointPerSuperstep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	app := bulkApp(t)
	th := graph.WithThread("1")
	count := func() int { return len(history2(t, app, "1")) }

	_, err := app.BulkUpdateState(ctx, [][]graph.StateUpdate[nestedKeys]{
		{up("node_a", myKey.Set("bar"))},
		{up("node_b", myOtherKey.Set("qux"))},
	}, th)
	require.NoError(t, err)
	snap, err := app.State(ctx, th)
	require.NoError(t, err)
	require.Equal(t, nestedKeys{MyKey: "bar", MyOtherKey: "qux"}, snap.Values)
	require.Equal(t, 2, count())

	cfg, err := app.BulkUpdateState(ctx, [][]graph.StateUpdate[nestedKeys]{
		{up("node_a", myKey.Set("baz")), up("node_b", myOtherKey.Set("qux"))},
	}, th)
	require.NoError(t, err)
	snap, err = app.State(ctx, th)
	require.NoError(t, err)
	require.Equal(t, cfg, snap.Config, "the call returns the last checkpoint")
	require.Equal(t, nestedKeys{MyKey: "baz", MyOtherKey: "qux"}, snap.Values)
	require.Equal(t, []string{"node_a", "node_b"}, snap.Metadata.Nodes)
	require.Equal(t, "update", string(snap.Metadata.Source))
	require.Equal(t, []string{"node_b"}, snap.Next, "node_a's edge; node_b's router chose End")
	require.Equal(t, 3, count())

	_, err = app.BulkUpdateState(ctx, [][]graph.StateUpdate[nestedKeys]{
		{up("node_a", myKey.Set("bar"))},
		{up("node_b", myOtherKey.Set("qux"))},
	}, th)
	require.NoError(t, err)
	snap, err = app.State(ctx, th)
	require.NoError(t, err)
	require.Equal(t, nestedKeys{MyKey: "bar", MyOtherKey: "qux"}, snap.Values)
	require.Equal(t, 5, count())
	var steps []int
	for _, s := range history2(t, app, "1") {
		steps = append(steps, s.Metadata.Step)
	}
	require.Equal(t, []int{3, 2, 1, 0, -1}, steps, "each superstep one step further (a fresh thread starts at -1, as LangGraph's update_state)")
}

// The supersteps are computed before anything is stored: an empty call,
// an empty superstep, an unnamed update beside others, a conflict of two
// writes of a field in one superstep or a router's error in a later
// superstep leaves the thread as it was.
func TestBulkUpdateStateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		steps [][]graph.StateUpdate[nestedKeys]
		want  string
		is    error
	}{
		{"no supersteps", nil, "no supersteps", graph.ErrInvalidUpdate},
		{"empty superstep", [][]graph.StateUpdate[nestedKeys]{{up("node_a", myKey.Set("x"))}, {}}, "superstep 1 has no updates", graph.ErrInvalidUpdate},
		{"unnamed beside others", [][]graph.StateUpdate[nestedKeys]{{up("", myKey.Set("x")), up("node_b", myOtherKey.Set("y"))}}, "each names its node", graph.ErrInvalidUpdate},
		{"conflict in a later superstep", [][]graph.StateUpdate[nestedKeys]{
			{up("node_a", myKey.Set("x"))},
			{up("node_a", myKey.Set("y")), up("node_b", myKey.Set("z"))},
		}, "(superstep 1)", graph.ErrInvalidUpdate},
		{"router error in a later superstep", [][]graph.StateUpdate[nestedKeys]{
			{up("node_a", myKey.Set("x"))},
			{up("node_b", myKey.Set("fail"))},
		}, "the router refuses fail", nil},
		{"unknown node", [][]graph.StateUpdate[nestedKeys]{{up("node_a")}, {up("nope")}}, `unknown node "nope"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			app := bulkApp(t)
			th := graph.WithThread("1")
			_, err := app.Invoke(ctx, state.Writes(myKey.Set("in")), th)
			require.NoError(t, err)
			before, err := app.State(ctx, th)
			require.NoError(t, err)
			n := len(history2(t, app, "1"))

			_, err = app.BulkUpdateState(ctx, tc.steps, th)
			require.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			after, err := app.State(ctx, th)
			require.NoError(t, err)
			require.Equal(t, before.Config, after.Config, "nothing stored")
			require.Len(t, history2(t, app, "1"), n)
		})
	}
}

// A bulk update can copy a thread: the first superstep is the input (as
// Start), the next ones are the nodes' writes; the copy then runs on.
func TestBulkUpdateStateCopiesAThreadAndItRunsOn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	app := bulkApp(t)
	_, err := app.BulkUpdateState(ctx, [][]graph.StateUpdate[nestedKeys]{
		{up(graph.Start, myKey.Set("copied"))},
		{up("node_a", myKey.Set("bar"))},
	}, graph.WithThread("copy"))
	require.NoError(t, err)
	snap, err := app.State(ctx, graph.WithThread("copy"))
	require.NoError(t, err)
	require.Equal(t, []string{"node_b"}, snap.Next)
	out, err := app.Invoke(ctx, state.Update[nestedKeys]{}, graph.WithThread("copy"))
	require.NoError(t, err)
	require.Equal(t, nestedKeys{MyKey: "bar", MyOtherKey: "qux"}, out)
}
