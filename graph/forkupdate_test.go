package graph_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors test_pregel.py's time-travel tests (update_state on a past
// checkpoint, then invoke(None, the config it returned)): the update
// checkpoint is the fork, so continuing from it stores no fork checkpoint
// of its own; its tasks run with the update applied, the old branch
// untouched.
func TestContinuingFromAnUpdateCheckpointAddsNoFork(t *testing.T) {
	t.Parallel()
	var cs calls
	c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	var afterA *graph.Snapshot[counter]
	for _, s := range history(t, c, "t") {
		if s.Metadata.Step == 1 {
			afterA = s
		}
	}
	require.NotNil(t, afterA)
	require.Equal(t, []string{"b"}, afterA.Next)
	upd, err := c.UpdateState(t.Context(), state.Writes(lastField.Set("edited")), "", graph.WithThread("t"), graph.WithCheckpoint(afterA.Config.CheckpointID))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(upd.CheckpointID))
	require.NoError(t, err)
	assert.Equal(t, "edited", out.Last)
	assert.Equal(t, []string{"a", "b", "c"}, out.Trail)
	assert.Equal(t, 1, cs.get("a"))
	assert.Equal(t, 2, cs.get("b"))

	var sources []checkpoint.Source
	var steps []int
	for _, s := range history(t, c, "t") {
		sources = append(sources, s.Metadata.Source)
		steps = append(steps, s.Metadata.Step)
	}
	// Newest first: the new branch (c, b, the update), then the old one.
	assert.Equal(t, []checkpoint.Source{
		checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceUpdate,
		checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceLoop, checkpoint.SourceInput,
	}, sources)
	assert.Equal(t, []int{4, 3, 2, 3, 2, 1, 0, -1}, steps)
}

// Mirrors test_interruption.py: an interrupted thread edited with
// update_state and resumed from the update checkpoint's config answers the
// interrupt there.
func TestResumePinnedToAnUpdateCheckpoint(t *testing.T) {
	t.Parallel()
	var cs calls
	c := mustCompile(t, graph.New(schema).AddNode("ask", askNode(&cs, "ask")).AddEdge(graph.Start, "ask"), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	upd, err := c.UpdateState(t.Context(), state.Writes(lastField.Set("edited")), "", graph.WithThread("t"))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(upd.CheckpointID), graph.Resume("yes"))
	require.NoError(t, err)
	assert.Equal(t, []string{"yes"}, out.Items)
	assert.Equal(t, "edited", out.Last)
	var sources []checkpoint.Source
	for _, s := range history(t, c, "t") {
		sources = append(sources, s.Metadata.Source)
	}
	assert.Equal(t, []checkpoint.Source{checkpoint.SourceLoop, checkpoint.SourceUpdate, checkpoint.SourceLoop, checkpoint.SourceInput}, sources)
}
