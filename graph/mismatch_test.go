package graph_test

import (
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// A thread paused before a node that the graph resuming it does not have
// (the program was started with another option, or the graph changed)
// is a mismatch between thread and graph, not damage in the database.
func TestResumingWithAGraphThatLacksAScheduledNodeIsAMismatch(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	withReview := graph.New(schema).AddNode("a", visit("a")).AddNode("review", visit("review")).
		AddEdge(graph.Start, "a").AddEdge("a", "review")
	first := mustCompile(t, withReview, graph.WithCheckpointer(saver))
	_, _ = first.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.InterruptBefore("review")) // paused: the snapshot says so
	snap, err := first.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"review"}, snap.Next)

	without := mustCompile(t, graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a"), graph.WithCheckpointer(saver))
	_, err = without.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrGraphMismatch)
	require.False(t, errors.Is(err, checkpoint.ErrCorrupt), "the data is sound: %v", err)
	require.ErrorContains(t, err, `thread "t"`)
	require.ErrorContains(t, err, snap.Config.CheckpointID)
	require.ErrorContains(t, err, `node "review"`)
}
