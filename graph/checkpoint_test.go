package graph_test

import (
	"context"
	"sync"
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
	require.Len(t, hist, 3)
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
		{checkpoint.SourceLoop, 1, nil, []string{"b"}},
		{checkpoint.SourceLoop, 0, []string{"b"}, []string{"a"}},
		{checkpoint.SourceInput, -1, []string{"a"}, nil},
	}, got)
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
	require.Len(t, history(t, c, "t1"), 6)
	require.Equal(t, 4, history(t, c, "t1")[0].Metadata.Step)

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
		{checkpoint.SourceLoop, 1, []string{"b", "c"}}, // the replayed step
		{checkpoint.SourceFork, 0, nil},                // the replay's fork of l0
		{checkpoint.SourceUpdate, 3, nil},              // the pure edit
		{checkpoint.SourceUpdate, 2, []string{"b"}},    // as node b
		{checkpoint.SourceLoop, 1, []string{"b", "c"}}, // b and c in one step
		{checkpoint.SourceLoop, 0, []string{"a"}},      //
		{checkpoint.SourceInput, -1, nil},              //
	}, got)
	// The first run's checkpoints share its run id and metadata; the replay
	// has a run id of its own.
	run1 := hist[6].Metadata.RunID
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
