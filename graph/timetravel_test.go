package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestReplayAndForkLeaveHistoryUntouched(t *testing.T) {
	t.Parallel()
	var bCalls atomic.Int64
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", counted(&bCalls, visit("b"))).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	before := history(t, c, "t")
	require.Len(t, before, 5)
	afterA := before[2] // step 1: a ran, b is next
	require.Equal(t, []string{"b"}, afterA.Next)

	// Replay from after a: b and c run again on a new branch.
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.WithCheckpoint(afterA.Config.CheckpointID))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.EqualValues(t, 2, bCalls.Load())
	after := history(t, c, "t")
	require.Len(t, after, 8)
	require.Equal(t, checkpoint.SourceFork, after[2].Metadata.Source)
	require.Equal(t, afterA.Config.CheckpointID, after[2].Parent.CheckpointID)
	for i, s := range before {
		require.Equal(t, s.Config, after[3+i].Config)
		require.Equal(t, s.Values, after[3+i].Values)
	}

	// Fork with an edited state: update as if a had written it.
	cfg, err := c.UpdateState(t.Context(), state.Writes(trailField.Overwrite([]string{"edited"})), "a", graph.WithThread("t"), graph.WithCheckpoint(afterA.Config.CheckpointID))
	require.NoError(t, err)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, cfg.CheckpointID, snap.Config.CheckpointID)
	require.Equal(t, checkpoint.SourceUpdate, snap.Metadata.Source)
	require.Equal(t, []string{"b"}, snap.Next)
	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"edited", "b", "c"}, out.Trail)
	pinned, err := c.State(t.Context(), graph.WithThread("t"), graph.WithCheckpoint(afterA.Config.CheckpointID))
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, pinned.Values.Trail)
}

// Mirrors test_checkpoint_forking / get_state_history after a fork:
// history is newest first, each checkpoint's parent is the one its branch
// came from, and the old branch is untouched. Forking at step 1 (a ran)
// with update_state(as_node="a") makes an update checkpoint at step 2, and
// the resumed branch continues at steps 3 and 4.
func TestHistoryAfterForkFollowsEachBranch(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	orig := history(t, c, "t")
	require.Len(t, orig, 5)
	a0 := orig[2]
	require.Equal(t, 1, a0.Metadata.Step)
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("forked")), "a", graph.WithThread("t"), graph.WithCheckpoint(a0.Config.CheckpointID))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.Equal(t, "forked", out.Last)

	hist := history(t, c, "t")
	type row struct {
		src  checkpoint.Source
		step int
	}
	var got []row
	byID := map[string]*graph.Snapshot[counter]{}
	for i, s := range hist {
		got = append(got, row{s.Metadata.Source, s.Metadata.Step})
		byID[s.Config.CheckpointID] = s
		if i > 0 {
			require.Less(t, s.Config.CheckpointID, hist[i-1].Config.CheckpointID, "newest first")
			require.False(t, s.CreatedAt.After(hist[i-1].CreatedAt))
		}
	}
	require.Equal(t, []row{
		{checkpoint.SourceLoop, 4}, {checkpoint.SourceLoop, 3}, {checkpoint.SourceUpdate, 2},
		{checkpoint.SourceLoop, 3}, {checkpoint.SourceLoop, 2}, {checkpoint.SourceLoop, 1}, {checkpoint.SourceLoop, 0}, {checkpoint.SourceInput, -1},
	}, got)
	// Walk the new branch from the head.
	var chain []int
	for s := hist[0]; s != nil; {
		chain = append(chain, s.Metadata.Step)
		if s.Parent == nil {
			break
		}
		s = byID[s.Parent.CheckpointID]
		require.NotNil(t, s, "a parent is missing from history")
	}
	require.Equal(t, []int{4, 3, 2, 1, 0, -1}, chain)
	require.Equal(t, a0.Config.CheckpointID, hist[2].Parent.CheckpointID)
	for i, s := range orig {
		require.Equal(t, s.Config, hist[3+i].Config)
		require.Equal(t, s.Values, hist[3+i].Values)
	}
}

// Mirrors test_invoke_checkpoint_three / time travel (invoke(None,
// {checkpoint_id})): replaying from any checkpoint re-runs only the nodes
// after it, and the result is the same.
func TestReplayRerunsOnlyLaterSteps(t *testing.T) {
	t.Parallel()
	nodes := []string{"a", "b", "c", "d"}
	for k := -1; k <= len(nodes); k++ { // node i runs in step i+1
		t.Run(fmt.Sprintf("from step %d", k), func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema)
			prev := graph.Start
			for _, n := range nodes {
				g.AddNode(n, cs.track(n)).AddEdge(prev, n)
				prev = n
			}
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			var at *graph.Snapshot[counter]
			for _, s := range history(t, c, "t") {
				if s.Metadata.Step == k {
					at = s
				}
			}
			require.NotNil(t, at)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(at.Config.CheckpointID))
			require.NoError(t, err)
			require.Equal(t, nodes, out.Trail)
			for i, n := range nodes {
				want := 1
				if i+1 > k {
					want = 2
				}
				require.Equal(t, want, cs.get(n), "node %s", n)
			}
		})
	}
}

// Mirrors LangGraph's replay of an interrupted checkpoint
// (PregelLoop._first: invoke(None, {checkpoint_id}) is resuming, so
// versions_seen[INTERRUPT] is advanced and the breakpoint is not hit
// again): replaying the checkpoint that stopped before b runs b.
func TestReplayOfInterruptedCheckpointRunsPendingTask(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	stopped := latestState(t, c, "t")
	require.Equal(t, []string{"b"}, stopped.Next)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(stopped.Config.CheckpointID))
	require.NoError(t, err, "the replay stopped at the breakpoint again instead of running the pending task")
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.Equal(t, 1, cs.get("a"))
}

// Replaying a checkpoint skips the interrupt-before of its first step only:
// a later step stops again at its interrupt-before (LangGraph marks the
// channels seen for interrupts when it resumes, so only the first tick is
// exempt).
func TestReplaySkipsOnlyTheFirstInterruptBefore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		fromStep  int // the pinned checkpoint's step
		wantTrail []string
		wantNext  []string // nil: the run ends
	}{
		{"from the input: a runs, stops before b again", -1, []string{"a"}, []string{"b"}},
		{"from the input applied: a runs, stops before b again", 0, []string{"a"}, []string{"b"}},
		{"from after a: b runs, stops before c", 1, []string{"a", "b"}, []string{"c"}},
		{"from the stop before c: c runs", 2, []string{"a", "b", "c"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b", "c"))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.ErrorIs(t, err, graph.ErrInterrupted)
			_, err = c.Invoke(t.Context(), zero, graph.WithThread("t")) // runs b, stops before c
			require.ErrorIs(t, err, graph.ErrInterrupted)
			var pinned string
			for _, s := range history(t, c, "t") {
				if s.Metadata.Step == tc.fromStep {
					pinned = s.Config.CheckpointID
				}
			}
			require.NotEmpty(t, pinned)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(pinned))
			require.Equal(t, tc.wantTrail, out.Trail)
			if tc.wantNext == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, graph.ErrInterrupted)
			}
			snap := latestState(t, c, "t")
			require.Equal(t, tc.wantNext, snap.Next)
		})
	}
}

// Mirrors LangGraph's time travel with interrupts (invoke(Command(resume=v),
// config with a past checkpoint_id)): replaying a checkpoint whose task is
// interrupted, with a resume value, answers the interrupt on the new
// branch. Here the value must at least not be dropped silently.
func TestReplayWithResumeAnswersTheInterrupt(t *testing.T) {
	t.Parallel()
	t.Run("by id", func(t *testing.T) {
		t.Parallel()
		var cs calls
		c := mustCompile(t, chainABC(&cs, askNode(&cs, "b")), graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		pinned := latestState(t, c, "t").Config.CheckpointID
		out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(pinned),
			graph.ResumeByID(map[string]any{ie.Interrupts[0].ID: "w"}))
		require.NoError(t, err)
		require.Equal(t, []string{"w"}, out.Items)
	})
	t.Run("raised in a subgraph", func(t *testing.T) {
		t.Parallel()
		var cs calls
		inner := mustCompile(t, graph.New(schema).AddNode("ask", askNode(&cs, "ask")).AddEdge(graph.Start, "ask"))
		g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		pinned := latestState(t, c, "t").Config.CheckpointID
		_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(pinned), graph.Resume("v"))
		require.ErrorContains(t, err, "raised in a subgraph")
		// The latest checkpoint still takes the answer.
		_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("v"))
		require.NoError(t, err)
	})
	var cs calls
	c := mustCompile(t, chainABC(&cs, askNode(&cs, "b")), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	pinned := latestState(t, c, "t").Config.CheckpointID
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(pinned), graph.Resume("v"))
	require.NoError(t, err)
	require.Equal(t, []string{"v"}, out.Items)
	require.Equal(t, []string{"a", "c"}, out.Trail)
}

// Mirrors LangGraph's get_state(config with checkpoint_id)
// (_prepare_state_snapshot applies pending writes only for the latest
// checkpoint): pinned to the checkpoint of a failed step, the state is as
// saved and both tasks are listed as next.
func TestPinnedStateDoesNotApplyPendingWrites(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("ok", visit("ok")).
		AddNode("bad", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, errors.New("bad")
		}).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	latest := latestState(t, c, "t")
	require.Equal(t, []string{"ok"}, latest.Values.Trail)
	require.Equal(t, []string{"bad"}, latest.Next)
	pinned, err := c.State(t.Context(), graph.WithThread("t"), graph.WithCheckpoint(latest.Config.CheckpointID))
	require.NoError(t, err)
	require.Empty(t, pinned.Values.Trail)
	require.Equal(t, []string{"bad", "ok"}, pinned.Next)
	require.Len(t, pinned.Tasks, 2)
}

// Mirrors the checkpointer list tests (test_checkpoint*.py: list with
// filter, before and limit) through get_state_history.
func TestHistoryFiltersByMetadataBeforeAndLimit(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithMetadata(map[string]any{"user": "ann", "try": 1}))
	require.NoError(t, err)
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("x")), "", graph.WithThread("t"))
	require.NoError(t, err)
	all := history(t, c, "t")
	require.Len(t, all, 6)
	steps := func(opts ...graph.HistoryOption) []int {
		var out []int
		for s, err := range c.History(t.Context(), append([]graph.HistoryOption{graph.WithThread("t")}, opts...)...) {
			require.NoError(t, err)
			out = append(out, s.Metadata.Step)
		}
		return out
	}
	cases := []struct {
		name string
		opts []graph.HistoryOption
		want []int
	}{
		{"source loop", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": "loop"})}, []int{3, 2, 1, 0}},
		{"source update", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": checkpoint.SourceUpdate})}, []int{4}},
		{"step", []graph.HistoryOption{graph.WithFilter(map[string]any{"step": 1})}, []int{1}},
		{"user metadata", []graph.HistoryOption{graph.WithFilter(map[string]any{"user": "ann", "try": 1})}, []int{3, 2, 1, 0, -1}},
		{"no match", []graph.HistoryOption{graph.WithFilter(map[string]any{"user": "bob"})}, nil},
		{"limit", []graph.HistoryOption{graph.WithLimit(2)}, []int{4, 3}},
		{"before", []graph.HistoryOption{graph.WithBefore(all[1].Config.CheckpointID)}, []int{2, 1, 0, -1}},
		{"before and limit", []graph.HistoryOption{graph.WithBefore(all[1].Config.CheckpointID), graph.WithLimit(1)}, []int{2}},
		{"filter and limit", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": "loop"}), graph.WithLimit(2)}, []int{3, 2}},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, steps(tc.opts...), tc.name)
	}
}
