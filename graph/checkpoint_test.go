package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestCheckpointAfterEveryStep(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrThreadRequired)
	out, err := c.Invoke(t.Context(), state.Writes(lastField.Set("in")), graph.WithThread("t1"), graph.WithMetadata(map[string]any{"user": "ann"}))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)

	hist := history(t, c, "t1")
	require.Len(t, hist, 4)
	type row struct {
		src   checkpoint.Source
		step  int
		next  []string
		nodes []string
	}
	var got []row
	for _, s := range hist {
		got = append(got, row{s.Metadata.Source, s.Metadata.Step, s.Next, s.Metadata.Nodes})
		require.Equal(t, "ann", s.Metadata.Extra["user"])
	}
	require.Equal(t, []row{
		{checkpoint.SourceLoop, 2, nil, []string{"b"}},
		{checkpoint.SourceLoop, 1, []string{"b"}, []string{"a"}},
		{checkpoint.SourceLoop, 0, []string{"a"}, nil}, // the input applied
		{checkpoint.SourceInput, -1, []string{graph.Start}, nil},
	}, got)
	require.Equal(t, counter{}, hist[3].Values, "the input checkpoint holds the state before the input")
	require.Equal(t, "in", hist[2].Values.Last)
	require.Equal(t, hist[1].Config.CheckpointID, hist[0].Parent.CheckpointID)
	require.Equal(t, []string{"a"}, hist[1].Values.Trail)

	snap, err := c.State(t.Context(), graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, out, snap.Values)
	require.Empty(t, snap.Next)

	// New input on the same thread continues from its state.
	out, err = c.Invoke(t.Context(), state.Writes(lastField.Set("again")), graph.WithThread("t1"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "a", "b"}, out.Trail)
	// LangGraph numbers it on: the input checkpoint at the previous step + 1
	// (3), the input applied (4), a (5), b (6).
	again := history(t, c, "t1")
	require.Len(t, again, 8)
	require.Equal(t, 6, again[0].Metadata.Step)
	require.Equal(t, checkpoint.SourceInput, again[3].Metadata.Source)
	require.Equal(t, 3, again[3].Metadata.Step)
	require.Equal(t, []string{"a", "b"}, again[3].Values.Trail, "the state before the second input")

	_, err = c.State(t.Context(), graph.WithThread("nope"))
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorContains(t, err, `"nope"`)
}

// Mirrors the checkpoint metadata assertions of test_pregel.py
// (MemorySaverAssertCheckpointMetadata, "source"/"step" after input, loop,
// update and fork): each checkpoint's source, step and nodes.
func TestCheckpointMetadataRecordsSourceStepNodesAndRun(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	ctx := t.Context()
	_, err := c.Invoke(ctx, state.Writes(lastField.Set("in")), graph.WithThread("t"), graph.WithMetadata(map[string]any{"who": "ann"}))
	require.NoError(t, err)
	first := history(t, c, "t")
	l0 := first[1]
	_, err = c.UpdateState(ctx, state.Writes(lastField.Set("u1")), "b", graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.UpdateState(ctx, state.Writes(lastField.Set("u2")), "", graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.Invoke(ctx, zero, graph.WithThread("t"), graph.WithCheckpoint(l0.Config.CheckpointID))
	require.NoError(t, err)

	type row struct {
		src   checkpoint.Source
		step  int
		nodes []string
	}
	var got []row
	hist := history(t, c, "t")
	for _, s := range hist {
		got = append(got, row{s.Metadata.Source, s.Metadata.Step, s.Metadata.Nodes})
	}
	require.Equal(t, []row{
		{checkpoint.SourceLoop, 2, []string{"b", "c"}}, // the replayed step
		{checkpoint.SourceFork, 1, nil},                // the replay's fork of l0
		{checkpoint.SourceUpdate, 4, nil},              // the pure edit
		{checkpoint.SourceUpdate, 3, []string{"b"}},    // as node b
		{checkpoint.SourceLoop, 2, []string{"b", "c"}}, // b and c in one step
		{checkpoint.SourceLoop, 1, []string{"a"}},      //
		{checkpoint.SourceLoop, 0, nil},                // the input applied
		{checkpoint.SourceInput, -1, nil},              //
	}, got)
	// The first run's checkpoints share its run id and metadata; the replay
	// has a run id of its own.
	run1 := hist[7].Metadata.RunID
	require.NotEmpty(t, run1)
	for _, s := range hist[4:] {
		require.Equal(t, run1, s.Metadata.RunID)
		require.Equal(t, "ann", s.Metadata.Extra["who"])
	}
	require.NotEmpty(t, hist[0].Metadata.RunID)
	require.NotEqual(t, run1, hist[0].Metadata.RunID)
	require.Equal(t, hist[0].Metadata.RunID, hist[1].Metadata.RunID)
	require.Equal(t, l0.Config.CheckpointID, hist[1].Parent.CheckpointID)
}

func TestConcurrentRunsOnOneThreadConflict(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	g := graph.New(schema).AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
		once.Do(func() { close(entered) })
		<-release
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "slow")
	saver := memory.New()
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	done := make(chan error)
	go func() {
		_, err := c.Invoke(context.Background(), state.Writes(lastField.Set("first")), graph.WithThread("t"))
		done <- err
	}()
	<-entered
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("second")), graph.WithThread("t"))
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.ErrorContains(t, err, `"t"`)
	close(release)
	require.NoError(t, <-done)

	// A second compiled graph (another process, as far as locks go) that
	// read the head before the first run moved it gets ErrConflict from the
	// saver's compare-and-set, never a silent fork.
	other := mustCompile(t, g, graph.WithCheckpointer(saver))
	snap, err := other.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	_, err = other.UpdateState(t.Context(), state.Writes(nField.Set(100)), "", graph.WithThread("t"))
	require.NoError(t, err)
	_, err = saver.Put(t.Context(), checkpoint.PutRequest{
		Config:     snap.Config,
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), Versions: map[string]string{}},
		ExpectHead: snap.Config.CheckpointID,
	})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
}

func TestWaitForThread(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	g := graph.New(schema).AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
		once.Do(func() { close(entered); <-release })
		return state.Writes(totalField.Set(1)), nil
	}).AddEdge(graph.Start, "inc")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := c.Invoke(context.Background(), state.Writes(lastField.Set("x")), graph.WithThread("t"))
		require.NoError(t, err)
	})
	<-entered
	second := make(chan counter)
	go func() {
		out, err := c.Invoke(context.Background(), state.Writes(lastField.Set("y")), graph.WithThread("t"), graph.WaitForThread())
		require.NoError(t, err)
		second <- out
	}()
	close(release)
	wg.Wait()
	require.Equal(t, 2, (<-second).Total)
}

// Pins LangGraph's checkpoint shape (test_pregel.py's get_state_history
// expectations): a run with input on a new thread saves an input
// checkpoint at step -1 holding the state before the input, with
// ("__start__",) next and one __start__ task whose result is the input;
// then a loop checkpoint at step 0 with the input applied and the entry
// node next; the first node runs in step 1, and streamed events say so.
// On an existing thread the input checkpoint takes the previous step + 1;
// a resume writes none.
func TestRunWithInputNumbersStepsAsLangGraph(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	var got []string
	for ev, err := range c.Stream(t.Context(), state.Writes(lastField.Set("in")), graph.WithThread("t"), graph.StreamModes(graph.Values, graph.Updates, graph.Checkpoints)) {
		require.NoError(t, err)
		got = append(got, fmt.Sprintf("%s@%d:%s", ev.Mode, ev.Step, ev.Node))
	}
	require.Equal(t, []string{"checkpoints@-1:", "checkpoints@0:", "values@0:", "updates@1:a", "checkpoints@1:", "values@1:", "updates@2:__interrupt__"}, got)

	hist := history(t, c, "t")
	require.Len(t, hist, 3)
	input, loop0 := hist[2], hist[1]
	require.Equal(t, checkpoint.SourceInput, input.Metadata.Source)
	require.Equal(t, -1, input.Metadata.Step)
	require.Equal(t, counter{}, input.Values, "the state before the input")
	require.Equal(t, []string{graph.Start}, input.Next)
	require.Len(t, input.Tasks, 1)
	require.Equal(t, graph.Start, input.Tasks[0].Node)
	require.True(t, input.Tasks[0].Done, "the input is saved as the __start__ task's writes")
	require.Nil(t, input.Parent)
	require.Equal(t, checkpoint.SourceLoop, loop0.Metadata.Source)
	require.Equal(t, 0, loop0.Metadata.Step)
	require.Equal(t, "in", loop0.Values.Last)
	require.Empty(t, loop0.Values.Trail)
	require.Equal(t, []string{"a"}, loop0.Next)
	require.Equal(t, input.Config.CheckpointID, loop0.Parent.CheckpointID)

	// A resume writes no input checkpoint.
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	hist = history(t, c, "t")
	require.Len(t, hist, 4)
	require.Equal(t, []int{2, 1, 0, -1}, []int{hist[0].Metadata.Step, hist[1].Metadata.Step, hist[2].Metadata.Step, hist[3].Metadata.Step})

	// New input on the thread: its input checkpoint is the previous step + 1
	// and holds the state the thread had.
	_, err = c.Invoke(t.Context(), state.Writes(lastField.Set("again")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	hist = history(t, c, "t")
	in2 := hist[2]
	require.Equal(t, checkpoint.SourceInput, in2.Metadata.Source)
	require.Equal(t, 3, in2.Metadata.Step)
	require.Equal(t, hist[3].Values, in2.Values)
	require.Equal(t, hist[3].Config.CheckpointID, in2.Parent.CheckpointID)
	require.Equal(t, 4, hist[1].Metadata.Step)
	require.Equal(t, "again", hist[1].Values.Last)
	require.Equal(t, 5, hist[0].Metadata.Step, "a ran in step 5")
}

// A run stopped between its input checkpoint and the next (the process
// died, the save failed) resumes from the input checkpoint: the input,
// saved as the __start__ task's writes, is applied then.
func TestResumeFromTheInputCheckpointAppliesTheInput(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	var failing atomic.Bool
	failing.Store(true)
	saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
		if failing.Load() && isLoopStep(req, 0) {
			return errDisk
		}
		return nil
	}}
	g := graph.New(schema).AddNode("a", visit("a")).AddEdge(graph.Start, "a")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("in")), graph.WithThread("t"))
	require.ErrorIs(t, err, errDisk)
	snap := latestState(t, c, "t")
	require.Equal(t, checkpoint.SourceInput, snap.Metadata.Source)
	require.Equal(t, []string{graph.Start}, snap.Next)
	require.Equal(t, counter{}, snap.Values)

	failing.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "in", out.Last)
	require.Equal(t, []string{"a"}, out.Trail)
	steps := []int{}
	for _, s := range history(t, c, "t") {
		steps = append(steps, s.Metadata.Step)
	}
	require.Equal(t, []int{1, 0, -1}, steps)
}
