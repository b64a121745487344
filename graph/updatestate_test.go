package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestUpdateStateAsEndAndPureEdit(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = c.UpdateState(t.Context(), state.Writes(nField.Set(7)), "", graph.WithThread("t"))
	require.NoError(t, err)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, snap.Next)
	require.Equal(t, 7, snap.Values.N)
	_, err = c.UpdateState(t.Context(), state.Update[counter]{}, "ghost", graph.WithThread("t"))
	require.ErrorContains(t, err, `unknown node "ghost"`)
}

// Mirrors test_interruption / the "skip a node" recipe: interrupted before
// b, update_state(values, as_node="b") records the update as b's, so
// resuming continues with b's edges (c) and b never runs.
func TestUpdateStateAsInterruptedNodeSkipsIt(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	before := latestState(t, c, "t")

	cfg, err := c.UpdateState(t.Context(), state.Writes(trailField.Set([]string{"b by hand"})), "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap := latestState(t, c, "t")
	require.Equal(t, cfg.CheckpointID, snap.Config.CheckpointID)
	require.Equal(t, []string{"c"}, snap.Next)
	require.Empty(t, snap.Interrupts)
	require.Equal(t, checkpoint.SourceUpdate, snap.Metadata.Source)
	require.Equal(t, 2, snap.Metadata.Step)
	require.Equal(t, []string{"b"}, snap.Metadata.Nodes)
	require.Equal(t, before.Config.CheckpointID, snap.Parent.CheckpointID)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b by hand", "c"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
}

// Mirrors test_update_as_input / test_batch_update_as_input
// (update_state(..., as_node="__start__") on an empty thread, then
// invoke(None)): the update acts as the input and the entry nodes run.
func TestUpdateStateAsStartOnEmptyThreadActsAsInput(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.UpdateState(t.Context(), state.Writes(lastField.Set("from update")), graph.Start, graph.WithThread("t"))
	require.NoError(t, err)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"a"}, snap.Next)
	require.Equal(t, "from update", snap.Values.Last)
	require.Equal(t, checkpoint.SourceUpdate, snap.Metadata.Source)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.Equal(t, "from update", out.Last)
}

// Mirrors update_state(config, None, as_node=...) in test_pregel.py: an
// empty update as a node still records the node and follows its edges.
func TestEmptyUpdateStateAsNodeFollowsItsEdges(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	before := latestState(t, c, "t")
	_, err = c.UpdateState(t.Context(), zero, "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"c"}, snap.Next)
	require.Equal(t, before.Values, snap.Values)
	require.Equal(t, []string{"b"}, snap.Metadata.Nodes)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
}

// A step failed after one task finished; the user edits the state
// (UpdateState with asNode "") and resumes. The finished task's saved
// writes are on the old checkpoint and must not be lost: the design says
// a finished node is never run again because a sibling failed.
func TestUpdateStateKeepsFinishedSiblings(t *testing.T) {
	t.Parallel()
	var aCalls atomic.Int64
	var fail atomic.Bool
	fail.Store(true)
	g := graph.New(schema).
		AddNode("a", counted(&aCalls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"a"})), nil
		})).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("b failed")
			}
			return state.Writes(itemsField.Set([]string{"b"})), nil
		}).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("edited")), "", graph.WithThread("t"))
	require.NoError(t, err)
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "edited", out.Last)
	require.Equal(t, []string{"a", "b"}, out.Items)
	require.EqualValues(t, 1, aCalls.Load(), "a finished before the edit and ran again")
}

// A static interrupt-before saved as a pending write, on a step with a
// task that already finished on an earlier attempt: UpdateState (a pure
// edit) carries the finished task over, and the resume runs only the
// interrupted task.
func TestPureEditAfterFailedStepKeepsFinishedTask(t *testing.T) {
	t.Parallel()
	var cs calls
	var fail atomic.Bool
	fail.Store(true)
	g := graph.New(schema).
		AddNode("ok", cs.track("ok")).
		AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("flaky")
			if fail.Load() {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(trailField.Set([]string{"flaky"})), nil
		}).
		AddNode("end", cs.track("end")).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "flaky").
		AddJoin([]string{"ok", "flaky"}, "end")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	// A pure edit keeps ok's writes and flaky's pending task.
	_, err = c.UpdateState(t.Context(), state.Writes(nField.Set(7)), "", graph.WithThread("t"))
	require.NoError(t, err)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"flaky"}, snap.Next)
	require.Equal(t, []string{"ok"}, snap.Values.Trail)
	fail.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 7, out.N)
	require.Equal(t, []string{"flaky", "ok", "end"}, out.Trail)
	require.Equal(t, 1, cs.get("ok"))
	require.Equal(t, 2, cs.get("flaky"))
}

// Mirrors LangGraph's edit-then-resume: update_state(values) on a thread
// paused in interrupt() keeps the interrupt pending, so Command(resume=…)
// answers it and the node reads the edited state.
func TestUpdateStateKeepsThePendingInterruptForResume(t *testing.T) {
	t.Parallel()
	var cs calls
	var seen string
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("ask")
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			seen = s.Last
			return state.Writes(itemsField.Set([]string{v})), nil
		}).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("edited")), "", graph.WithThread("t"))
	require.NoError(t, err)
	snap := latestState(t, c, "t")
	require.Len(t, snap.Interrupts, 1, "the edit kept the interrupt")
	require.Equal(t, "name?", snap.Interrupts[0].Value)
	require.Equal(t, []string{"ask"}, snap.Next)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err)
	require.Equal(t, []string{"ann"}, out.Items)
	require.Equal(t, "edited", seen)
	require.Equal(t, 2, cs.get("ask"))
}
