package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// The state cache answers exactly what decoding the checkpoint answers.
func TestCachedStateMatchesDecodedState(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	build := func() *graph.Compiled[counter] {
		return w3Graph(t, 300, saver)
	}
	warm, cold := build(), build()
	_, err := warm.Invoke(t.Context(), state.Writes(lastField.Set("x")), graph.WithThread("t"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)
	a, err := warm.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	b, err := cold.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, b.Values, a.Values)
	require.Len(t, a.Values.Items, 300)
	var n int
	for s, err := range cold.History(t.Context(), graph.WithThread("t"), graph.WithLimit(50)) {
		require.NoError(t, err)
		require.Len(t, s.Values.Items, 300-n/2)
		n++
	}
}

// The state cache must not share memory with values handed out: a run that
// failed after applying its step returned a state; a later run resumed
// from the cached checkpoint appends into the same backing array and
// changes the earlier result.
func TestCachedStateDoesNotAliasReturnedState(t *testing.T) {
	t.Parallel()
	var aCalls, routeCalls atomic.Int64
	g := graph.New(schema).
		AddNode("p1", visit("p1")).AddNode("p2", visit("p2")).AddNode("p3", visit("p3")).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(trailField.Set([]string{fmt.Sprintf("a%d", aCalls.Add(1))})), nil
		}).
		AddEdge(graph.Start, "p1").AddEdge("p1", "p2").AddEdge("p2", "p3").AddEdge("p3", "a").
		AddConditionalEdges("a", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if routeCalls.Add(1) == 1 {
				return "", errors.New("router down")
			}
			return graph.End, nil
		}), graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	first, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "router down")
	require.Equal(t, []string{"p1", "p2", "p3", "a1"}, first.Trail)
	second, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "p2", "p3", "a2"}, second.Trail)
	require.Equal(t, []string{"p1", "p2", "p3", "a1"}, first.Trail, "a state returned earlier changed")
}

// The snapshot State returns is the caller's: changing it must not change
// what the next State (or a resumed run) reads.
func TestStateSnapshotIsCallersOwn(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	snap.Values.Trail[0] = "edited by the caller"
	again, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, again.Values.Trail, "the cache returned the caller's edit, not the checkpoint")
}

// History reuses the values it already decoded (the same version, or a
// prefix of a newer append field) instead of decoding every checkpoint.
// Every snapshot must still equal the checkpoint decoded on its own:
// across deltas, periodic snapshots, overwrites, forks and updates.
func TestHistoryValuesMatchEachCheckpoint(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	grow := graph.New(schema).
		AddNode("add", func(ctx context.Context, s counter) (state.Update[counter], error) {
			ws := []state.Write[counter]{itemsField.Set([]string{fmt.Sprint(len(s.Items))}), nField.Set(s.N + 1)}
			if s.N == 150 {
				ws[0] = itemsField.Overwrite([]string{"reset"})
			}
			return state.Writes(ws...), nil
		}).
		AddEdge(graph.Start, "add").
		AddConditionalEdges("add", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 300 {
				return "add", nil
			}
			return graph.End, nil
		}), "add", graph.End)
	warm := mustCompile(t, grow, graph.WithCheckpointer(saver))
	_, err := warm.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("h"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)
	// A fork from step 100 with an update, then a replay to the end.
	var at100 string
	for s, err := range warm.History(t.Context(), graph.WithThread("h")) {
		require.NoError(t, err)
		if s.Metadata.Step == 100 {
			at100 = s.Config.CheckpointID
		}
	}
	_, err = warm.UpdateState(t.Context(), state.Writes(itemsField.Set([]string{"edited"})), "", graph.WithThread("h"), graph.WithCheckpoint(at100))
	require.NoError(t, err)
	_, err = warm.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("h"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)

	cold := mustCompile(t, grow, graph.WithCheckpointer(saver))
	n := 0
	for s, err := range warm.History(t.Context(), graph.WithThread("h")) {
		require.NoError(t, err)
		one, err := cold.State(t.Context(), graph.WithThread("h"), graph.WithCheckpoint(s.Config.CheckpointID))
		require.NoError(t, err)
		require.Equal(t, one.Values, s.Values, "checkpoint %s (step %d)", s.Config.CheckpointID, s.Metadata.Step)
		n++
	}
	require.Greater(t, n, 500)
}
