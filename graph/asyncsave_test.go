package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// streamOrder runs c on a fresh thread and returns the order of its
// Checkpoints and Values events: "cp<step>" once a checkpoint is stored,
// "v<step>" after a step. A checkpoint stored inline is announced before
// its step's values; one stored in the background after the next step's
// tasks.
func streamOrder(t *testing.T, c *graph.Compiled[counter]) []string {
	t.Helper()
	var order []string
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Checkpoints, graph.Values)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Checkpoints:
			order = append(order, fmt.Sprintf("cp%d", ev.Metadata.Step))
		case graph.Values:
			order = append(order, fmt.Sprintf("v%d", ev.Step))
		}
	}
	return order
}

// slowly makes a node or a Put take at least d: work that takes time
// (a model call, a remote database), not synchronisation.
func slowly(d time.Duration) { time.Sleep(d) }

func TestDurabilityAsyncSavesInlineWhenNodesAreQuick(t *testing.T) {
	t.Parallel()
	var cs calls
	stopped := func() time.Time { return time.Unix(0, 0) } // everything times as quick, however loaded the machine
	c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityAsync), graph.WithClock(stopped))
	// The input's and step 0's checkpoints, before the run has timed a
	// node and a save, go to the background (step 0's is announced after
	// step 0's values); from step 1 on, with nothing to overlap a save
	// with, each is stored before the next step, as under DurabilitySync.
	require.Equal(t, []string{"cp-1", "v0", "cp0", "cp1", "v1", "cp2", "v2", "cp3", "v3"}, streamOrder(t, c))
}

func TestDurabilityAsyncSavesInTheBackgroundWhenNodesAndSavesTakeTime(t *testing.T) {
	t.Parallel()
	const work = 2 * time.Millisecond // well over what a background save costs
	saver := hookedSaver{Saver: memory.New(), before: func(checkpoint.PutRequest) error {
		slowly(work)
		return nil
	}}
	slow := func(name string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			slowly(work)
			return visit(name)(ctx, s)
		}
	}
	g := graph.New(schema).AddNode("a", slow("a")).AddNode("b", slow("b")).AddNode("c", slow("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))
	// Each checkpoint overlaps the next step and is announced after it.
	require.Equal(t, []string{"cp-1", "v0", "cp0", "v1", "cp1", "v2", "cp2", "v3", "cp3"}, streamOrder(t, c))
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"a", "b", "c"}, snap.Values.Trail)
	hist := history(t, c, "t")
	require.Len(t, hist, 5)
	for i := range hist[:4] {
		require.Equal(t, hist[i+1].Config.CheckpointID, hist[i].Parent.CheckpointID)
	}
}

// cancellingSaver cancels the run while it stores the checkpoint of loop
// step 2: a Ctrl-C that lands during a save.
type cancellingSaver struct {
	checkpoint.Saver
	cancel func()
}

func (s cancellingSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if isLoopStep(req, 2) {
		s.cancel()
	}
	return s.Saver.Put(ctx, req)
}

// TestSaveOfAFinishedStepSurvivesACancel pins that a save of finished
// work ignores a cancel that lands while it runs, in every way a step's
// checkpoint is stored: the finished step is kept and not run again on
// resume.
func TestSaveOfAFinishedStepSurvivesACancel(t *testing.T) {
	t.Parallel()
	stopped := func() time.Time { return time.Unix(0, 0) } // quick nodes and saves: async stores inline from step 1
	for _, tc := range []struct {
		name string
		opts []graph.CompileOption
	}{
		{"sync", []graph.CompileOption{graph.WithDurability(graph.DurabilitySync)}},
		{"async in the background", []graph.CompileOption{graph.WithDurability(graph.DurabilityAsync), graph.AlwaysSaveInBackground()}},
		{"async inline", []graph.CompileOption{graph.WithDurability(graph.DurabilityAsync)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var cs calls
			saver := cancellingSaver{Saver: memory.New(), cancel: cancel}
			opts := append([]graph.CompileOption{graph.WithCheckpointer(saver), graph.WithClock(stopped)}, tc.opts...)
			c := mustCompile(t, chainABC(&cs, nil), opts...)
			_, _ = c.Invoke(ctx, zero, graph.WithThread("t")) // cancelled: it may end with the context's error
			require.GreaterOrEqual(t, latestStep(t, c, "t"), 2, "b's step finished: its checkpoint is stored")
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, 1, cs.get("b"), "b is not run again on resume")
		})
	}
}
