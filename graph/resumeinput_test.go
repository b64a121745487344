package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors LangGraph's Command(resume=…, update=…), whose update is saved
// as pending writes of the checkpoint before the resumed step runs: when
// that step fails, the input is not lost. A later resume applies it
// (once, even when it brings an input of its own), and the node gets its
// answer; a graph compiled anew reads the same.
func TestResumeWithInputSurvivesAFailedStep(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	var seen []string
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return zero, err
			}
			seen = append(seen, s.Last+"/"+join(s.Trail))
			if failing.Load() {
				return zero, errors.New("down")
			}
			return state.Writes(itemsField.Set([]string{v})), nil
		}).
		AddEdge(graph.Start, "ask")
	saver := memory.New()
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("first")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	_, err = c.Invoke(t.Context(), state.Writes(lastField.Set("edited"), trailField.Set([]string{"x"})), graph.WithThread("t"), graph.Resume("ann"))
	require.ErrorContains(t, err, "down")
	assert.Equal(t, []string{"edited/x"}, seen)
	snap := latestState(t, c, "t")
	assert.Equal(t, "edited", snap.Values.Last, "State shows the input waiting to be applied")
	assert.Equal(t, []string{"x"}, snap.Values.Trail)

	// The next resume brings another input: both apply, the first once.
	out, err := mustCompile(t, g, graph.WithCheckpointer(saver)).Invoke(t.Context(), state.Writes(trailField.Set([]string{"y"})), graph.WithThread("t"), graph.Resume("bob"))
	require.ErrorContains(t, err, "down")
	assert.Equal(t, "edited/x,y", seen[1])
	_ = out

	failing.Store(false)
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("cid"))
	require.NoError(t, err)
	assert.Equal(t, "edited/x,y", seen[2])
	assert.Equal(t, []string{"cid"}, out.Items)
	assert.Equal(t, "edited", out.Last)
	assert.Equal(t, []string{"x", "y"}, out.Trail, "each input applied once")
	assert.Equal(t, out, latestState(t, mustCompile(t, g, graph.WithCheckpointer(saver)), "t").Values)

	// Once the step's checkpoint is stored, nothing is applied again.
	out, err = c.Invoke(t.Context(), state.Writes(nField.Set(5)), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	assert.Equal(t, []string{"x", "y"}, out.Trail)
}
