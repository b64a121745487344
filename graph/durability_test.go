package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// hookedSaver runs a hook before each Put; the hook may block or fail it.
type hookedSaver struct {
	checkpoint.Saver
	before func(req checkpoint.PutRequest) error
}

func (s hookedSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if err := s.before(req); err != nil {
		return checkpoint.Config{}, err
	}
	return s.Saver.Put(ctx, req)
}

// isLoopStep reports whether req stores the loop checkpoint of step.
func isLoopStep(req checkpoint.PutRequest, step int) bool {
	return req.Metadata.Source == checkpoint.SourceLoop && req.Metadata.Step == step
}

// waitFor blocks until ch is closed; the timeout is a deadlock guard only.
func waitFor(ch <-chan struct{}, what string) error {
	select {
	case <-ch:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("deadlock guard: " + what)
	}
}

// latestStep returns the step of the thread's latest checkpoint.
func latestStep(t *testing.T, c *graph.Compiled[counter], thread string) int {
	t.Helper()
	return latestState(t, c, thread).Metadata.Step
}

// Mirrors test_async_durability_keeps_single_superstep_overlap and
// test_*_durability_*: every mode stores what it promises, at most one save
// runs at a time, none outlives the run, and the final state is the same.
func TestDurabilityModesStoreWhatTheyPromise(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			saver := newRecordingSaver()
			g := graph.New(schema).
				AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
					return state.Writes(nField.Set(s.N+1), trailField.Set([]string{fmt.Sprint(s.N)})), nil
				}).
				AddEdge(graph.Start, "inc").
				AddConditionalEdges("inc", graph.Choose(func(ctx context.Context, s counter) (string, error) {
					if s.N < 6 {
						return "inc", nil
					}
					return graph.End, nil
				}), "inc", graph.End)
			c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(d))
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, 6, out.N)
			active, maxActive, puts, early := saver.snapshot()
			require.Zero(t, active)
			require.Equal(t, 1, maxActive)
			require.Empty(t, early)
			var steps []int
			for _, s := range history(t, c, "t") {
				steps = append(steps, s.Metadata.Step)
			}
			switch d {
			case graph.DurabilityExit:
				// LangGraph's "exit": only the checkpoint the run ends on
				// (and the pending writes), no input checkpoint.
				require.Equal(t, []int{6}, steps)
				require.Equal(t, 1, puts)
			default:
				// The input checkpoint (-1), the input applied (0), one per
				// node run (1..6).
				require.Equal(t, []int{6, 5, 4, 3, 2, 1, 0, -1}, steps)
				require.Equal(t, 8, puts)
			}
			// A fresh graph (no state cache) reads the same final state.
			fresh := mustCompile(t, g, graph.WithCheckpointer(saver))
			require.Equal(t, out, latestState(t, fresh, "t").Values)
		})
	}
}

// Every durability mode keeps a failed step's finished siblings and
// resumes without running them again.
func TestEveryDurabilityResumesWithoutRerunningFinishedSiblings(t *testing.T) {
	t.Parallel()
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			t.Parallel()
			var okCalls, flakyCalls atomic.Int64
			var failing atomic.Bool
			failing.Store(true)
			g := graph.New(schema).
				AddNode("pre", visit("pre")).
				AddNode("ok", counted(&okCalls, visit("ok"))).
				AddNode("flaky", counted(&flakyCalls, func(ctx context.Context, s counter) (state.Update[counter], error) {
					if failing.Load() {
						return state.Update[counter]{}, errors.New("service down")
					}
					return visit("flaky")(ctx, s)
				})).
				AddNode("after", visit("after")).
				AddEdge(graph.Start, "pre").AddEdge("pre", "ok").AddEdge("pre", "flaky").
				AddJoin([]string{"ok", "flaky"}, "after")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			require.Equal(t, "flaky", ne.Node)

			failing.Store(false)
			out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"pre", "flaky", "ok", "after"}, out.Trail)
			require.EqualValues(t, 1, okCalls.Load())
			require.EqualValues(t, 2, flakyCalls.Load())
		})
	}
}

func TestDurabilityExitStoresOnlyTheEnd(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	hist := history(t, c, "t")
	require.Len(t, hist, 1) // the end, as LangGraph's exit stores
	require.Equal(t, out, hist[0].Values)
	require.Equal(t, checkpoint.SourceLoop, hist[0].Metadata.Source)
	require.Equal(t, 2, hist[0].Metadata.Step)
}

// DurabilityExit keeps "the final checkpoint and pending writes": a run
// stopped by Interrupt must be resumable.
func TestDurabilityExitInterruptIsResumable(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(v)), nil
		}).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Len(t, snap.Interrupts, 1, "the interrupt was not stored")
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err)
	require.Equal(t, "ann", out.Last)
}

// Under DurabilityExit the final checkpoint must still name its parent
// (the previous run's final checkpoint), or History/MermaidPath lose the
// chain.
func TestDurabilityExitFinalCheckpointHasParent(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Writes(lastField.Set("again")), graph.WithThread("t"))
	require.NoError(t, err)
	hist := history(t, c, "t")
	require.Len(t, hist, 2)
	require.Equal(t, []int{6, 2}, []int{hist[0].Metadata.Step, hist[1].Metadata.Step}, "the second run's input checkpoint would be step 3")
	require.NotNil(t, hist[0].Parent, "the final checkpoint has no parent")
	require.Equal(t, hist[1].Config.CheckpointID, hist[0].Parent.CheckpointID)
}

// Under DurabilityExit, tasks after the first step once got ids derived
// from an empty checkpoint id, so a later run reached a subgraph with the
// same task id — and the same namespace — as the first: the subgraph
// "resumed" its finished old run instead of running again.
func TestDurabilityExitReplayRerunsSubgraph(t *testing.T) {
	t.Parallel()
	var innerCalls, preCalls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n := innerCalls.Add(1)
			return state.Writes(lastField.Set(fmt.Sprintf("x%d", n))), nil
		}).
		AddEdge(graph.Start, "x"))
	g := graph.New(schema).AddNode("pre", counted(&preCalls, visit("pre"))).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "x1", out.Last)
	require.Len(t, history(t, c, "t"), 1, "exit stores the final checkpoint only")
	out, err = c.Invoke(t.Context(), state.Writes(trailField.Set(nil)), graph.WithThread("t"))
	require.NoError(t, err)
	require.EqualValues(t, 2, preCalls.Load(), "the second run ran the step before the subgraph")
	require.EqualValues(t, 2, innerCalls.Load(), "the second run did not run the subgraph again")
	require.Equal(t, "x2", out.Last)
}

// A subgraph run follows its parent run's durability, as in LangGraph,
// whatever the subgraph was compiled with.
func TestSubgraphFollowsTheParentsDurability(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		parent    graph.Durability
		innerPuts int // checkpoints stored in the subgraph's namespace
	}{
		{graph.DurabilitySync, 5}, // input, input applied, x, y, z
		{graph.DurabilityExit, 0}, // none: LangGraph stores a finished subgraph's nothing under exit
	} {
		t.Run(tc.parent.String(), func(t *testing.T) {
			t.Parallel()
			var innerPuts atomic.Int64
			saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
				if req.Config.Namespace != "" {
					innerPuts.Add(1)
				}
				return nil
			}}
			inner := mustCompile(t, graph.New(schema).
				AddNode("x", visit("x")).AddNode("y", visit("y")).AddNode("z", visit("z")).
				AddEdge(graph.Start, "x").AddEdge("x", "y").AddEdge("y", "z"),
				graph.WithDurability(graph.DurabilitySync))
			g := graph.New(schema).AddSubgraph("sub", inner).AddNode("after", visit("after")).
				AddEdge(graph.Start, "sub").AddEdge("sub", "after")
			c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(tc.parent))
			out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"x", "y", "z", "after"}, out.Trail)
			require.EqualValues(t, tc.innerPuts, innerPuts.Load())
		})
	}
}

// Cancelling the run while the previous step's checkpoint is being stored
// in the background: the save completes (it ignores the cancellation), the
// run returns the context's error, and resuming runs only what is left.
func TestCancelDuringBackgroundSaveKeepsFinishedSteps(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			cancelled := make(chan struct{})
			saver := newRecordingSaver()
			if d == graph.DurabilityAsync {
				saver.beforePut = func(req checkpoint.PutRequest) error {
					if isLoopStep(req, 1) {
						return waitFor(cancelled, "b did not run while step 1 was stored")
					}
					return nil
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var cs calls
			b := func(ctx context.Context, s counter) (state.Update[counter], error) {
				cancel()
				close(cancelled)
				return cs.track("b")(ctx, s)
			}
			c := mustCompile(t, chainABC(&cs, b), graph.WithCheckpointer(saver), graph.WithDurability(d), graph.AlwaysSaveInBackground())
			_, err := c.Invoke(ctx, zero, graph.WithThread("t"))
			require.ErrorIs(t, err, context.Canceled)
			require.Equal(t, 2, latestStep(t, c, "t"), "b's step finished and is stored")

			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b", "c"}, out.Trail)
			require.Equal(t, 1, cs.get("a"))
			require.Equal(t, 1, cs.get("b"))
			require.Equal(t, 1, cs.get("c"))
		})
	}
}

// Breaking out of Stream right after a task's update: no goroutine or save
// outlives the loop (goleak checks in TestMain), the finished step is kept,
// and a resume continues after it, in every durability.
func TestStreamBreakThenResumeKeepsFinishedStepInEveryDurability(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			saver := newRecordingSaver()
			var cs calls
			c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(saver), graph.WithDurability(d))
			for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Updates)) {
				require.NoError(t, err)
				if ev.Node == "b" {
					break
				}
			}
			active, _, _, early := saver.snapshot()
			require.Zero(t, active, "a save outlived the stream")
			require.Empty(t, early)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b", "c"}, out.Trail)
			require.Equal(t, 1, cs.get("a"))
			require.Equal(t, 1, cs.get("b"), "b's finished step was lost")
			require.Equal(t, 1, cs.get("c"))
			hist := history(t, c, "t")
			for i := 0; i+1 < len(hist); i++ {
				require.Equal(t, hist[i+1].Config.CheckpointID, hist[i].Parent.CheckpointID)
			}
		})
	}
}

// Under DurabilityAsync the checkpoint of step 1 (after a) is stored while
// step 2 runs: its Put can only return once node b has run.
func TestDurabilityAsyncSavesWhileTheNextStepRuns(t *testing.T) {
	t.Parallel()
	bRan := make(chan struct{})
	saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
		if !isLoopStep(req, 1) {
			return nil
		}
		select {
		case <-bRan:
			return nil
		case <-time.After(10 * time.Second): // a deadlock guard, not synchronisation
			return errors.New("node b did not run while step 1 was being stored")
		}
	}}
	g := graph.New(schema).
		AddNode("a", visit("a")).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			close(bRan)
			return visit("b")(ctx, s)
		}).
		AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync), graph.AlwaysSaveInBackground())

	var saved []int
	var out counter
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Values|graph.Checkpoints)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Checkpoints:
			saved = append(saved, ev.Metadata.Step)
		case graph.Values:
			out = ev.State
		}
	}
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.Equal(t, []int{-1, 0, 1, 2, 3}, saved, "every checkpoint is stored, in order, before the run returns")

	hist := history(t, c, "t")
	require.Len(t, hist, 5)
	for i, s := range hist[:4] {
		require.Equal(t, hist[i+1].Config.CheckpointID, s.Parent.CheckpointID, "checkpoint %d", i)
	}
	require.Equal(t, out, hist[0].Values)
	require.Empty(t, hist[0].Next)
}

// A background save that fails ends the run with its error, names the
// step, and leaves the thread at its last stored checkpoint, resumable.
func TestDurabilityAsyncSaveErrorEndsTheRunAndLosesNothingStored(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	var failing atomic.Bool
	failing.Store(true)
	saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
		if failing.Load() && isLoopStep(req, 2) {
			return errDisk
		}
		return nil
	}}
	var calls [3]atomic.Int64
	g := graph.New(schema).
		AddNode("a", counted(&calls[0], visit("a"))).
		AddNode("b", counted(&calls[1], visit("b"))).
		AddNode("c", counted(&calls[2], visit("c"))).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))

	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, errDisk)
	require.ErrorContains(t, err, "step 2")
	require.ErrorContains(t, err, `"t"`, "the error names the thread")

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 1, snap.Metadata.Step, "the last stored checkpoint is intact")
	require.Equal(t, []string{"b"}, snap.Next)

	failing.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.EqualValues(t, 1, calls[0].Load(), "a's step was stored")
	require.EqualValues(t, 2, calls[1].Load(), "b's step was lost with its checkpoint")
}

// Under DurabilityAsync, the checkpoint of step 1 (after a) is stored while
// b runs. When that save fails, the run must end with the save's error,
// whatever else stops it in step 2 — the thread is not where the returned
// error says (an interrupt that was never stored cannot be resumed).
func TestDurabilityAsyncFailedSaveIsReportedWhateverStopsTheRun(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	cases := []struct {
		name string
		b    func(cs *calls) graph.NodeFunc[counter]
		opts []graph.RunOption
	}{
		{name: "nothing else", b: func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") }},
		{name: "interrupt before b", b: func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") }, opts: []graph.RunOption{graph.InterruptBefore("b")}},
		{
			name: "interrupt after a",
			b:    func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") },
			opts: []graph.RunOption{graph.InterruptAfter("a")},
		},
		{
			name: "b calls Interrupt",
			b:    func(cs *calls) graph.NodeFunc[counter] { return askNode(cs, "b") },
		},
		{
			name: "b fails",
			b: func(cs *calls) graph.NodeFunc[counter] {
				return func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("b")
					return state.Update[counter]{}, errors.New("boom")
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			saver := newRecordingSaver()
			saver.beforePut = func(req checkpoint.PutRequest) error {
				if isLoopStep(req, 1) {
					return errDisk
				}
				return nil
			}
			var cs calls
			c := mustCompile(t, chainABC(&cs, tc.b(&cs)), graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))
			_, err := c.Invoke(t.Context(), zero, append([]graph.RunOption{graph.WithThread("t")}, tc.opts...)...)
			require.ErrorIs(t, err, errDisk, "the failed save of step 1 must be reported")
			require.Equal(t, 0, latestStep(t, c, "t"), "the thread stays at its last stored checkpoint")
		})
	}
}

// A task's writes are stored against the checkpoint holding it; under
// DurabilityAsync that checkpoint may still be in flight when the task
// finishes: the writes wait for it (never stored before it, never lost).
func TestDurabilityAsyncWritesWaitForTheirCheckpoint(t *testing.T) {
	t.Parallel()
	b1Done := make(chan struct{})
	saver := newRecordingSaver()
	saver.beforePut = func(req checkpoint.PutRequest) error {
		if isLoopStep(req, 1) {
			return waitFor(b1Done, "b1 did not run while step 1 was stored")
		}
		return nil
	}
	var cs calls
	var fail atomic.Bool
	fail.Store(true)
	g := graph.New(schema).
		AddNode("a", cs.track("a")).
		AddNode("b1", func(ctx context.Context, s counter) (state.Update[counter], error) {
			defer close(b1Done)
			return cs.track("b1")(ctx, s)
		}).
		AddNode("b2", cs.track("b2")).
		AddNode("b3", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("b3")
			if fail.Load() {
				return state.Update[counter]{}, errors.New("flaky")
			}
			return state.Writes(trailField.Set([]string{"b3"})), nil
		}).
		AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b1").AddEdge("a", "b2").AddEdge("a", "b3").
		AddJoin([]string{"b1", "b2", "b3"}, "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync), graph.AlwaysSaveInBackground())
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "b3", ne.Node)
	active, maxActive, _, early := saver.snapshot()
	require.Empty(t, early, "writes were stored against a checkpoint not stored yet")
	require.Zero(t, active, "a save outlived the run")
	require.Equal(t, 1, maxActive, "at most one checkpoint is in flight")

	snap := latestState(t, c, "t")
	require.Equal(t, 1, snap.Metadata.Step)
	require.ElementsMatch(t, []string{"a", "b1", "b2"}, snap.Values.Trail)
	require.Equal(t, []string{"b3"}, snap.Next)

	fail.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b1", "b2", "b3", "c"}, out.Trail)
	for name, n := range map[string]int{"a": 1, "b1": 1, "b2": 1, "b3": 2, "c": 1} {
		require.Equal(t, n, cs.get(name), name)
	}
}

// Subgraphs under DurabilityAsync (the parent's, the subgraph's, or both):
// an interrupt inside the subgraph stops the parent, the resume finishes
// it, and every subgraph checkpoint names a parent checkpoint that was
// stored.
func TestDurabilityAsyncSubgraphInterruptResumes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		parent, inner graph.Durability
	}{
		{"parent async", graph.DurabilityAsync, graph.DurabilitySync},
		{"subgraph async", graph.DurabilitySync, graph.DurabilityAsync},
		{"both async", graph.DurabilityAsync, graph.DurabilityAsync},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			saver := newRecordingSaver()
			var cs calls
			inner := mustCompile(t, graph.New(schema).
				AddNode("x", cs.track("x")).AddNode("ask", askNode(&cs, "ask")).AddNode("y", cs.track("y")).
				AddEdge(graph.Start, "x").AddEdge("x", "ask").AddEdge("ask", "y"), graph.WithDurability(tc.inner))
			g := graph.New(schema).
				AddNode("pre", cs.track("pre")).AddSubgraph("sub", inner).AddNode("post", cs.track("post")).
				AddEdge(graph.Start, "pre").AddEdge("pre", "sub").AddEdge("sub", "post")
			c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(tc.parent))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.ErrorIs(t, err, graph.ErrInterrupted)
			snap := latestState(t, c, "t")
			require.Equal(t, []string{"sub"}, snap.Next)
			require.Len(t, snap.Tasks, 1)
			ns := "sub:" + snap.Tasks[0].ID

			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("ok"))
			require.NoError(t, err)
			require.Equal(t, []string{"pre", "x", "y", "post"}, out.Trail)
			require.Equal(t, []string{"ok"}, out.Items)
			for name, n := range map[string]int{"pre": 1, "x": 1, "ask": 2, "y": 1, "post": 1} {
				require.Equal(t, n, cs.get(name), name)
			}
			active, _, _, early := saver.snapshot()
			require.Zero(t, active)
			require.Empty(t, early)

			parentIDs := map[string]bool{}
			for _, s := range history(t, c, "t") {
				parentIDs[s.Config.CheckpointID] = true
			}
			n := 0
			for tup, err := range saver.List(t.Context(), checkpoint.Config{ThreadID: "t", Namespace: ns}, checkpoint.ListOptions{}) {
				require.NoError(t, err)
				n++
				require.True(t, parentIDs[tup.Metadata.Parents[""]], "subgraph checkpoint at step %d names parent checkpoint %q, which is not stored", tup.Metadata.Step, tup.Metadata.Parents[""])
			}
			require.NotZero(t, n, "no checkpoint in the subgraph's namespace %q", ns)
		})
	}
}

// Right after an async run: UpdateState, a replay (fork) and State (which
// may come from the state cache) see every checkpoint the run stored, and
// agree with a fresh graph that decodes them.
func TestDurabilityAsyncRunThenUpdateStateAndReplay(t *testing.T) {
	t.Parallel()
	saver := newRecordingSaver()
	var cs calls
	g := chainABC(&cs, nil)
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync), graph.WithInterruptBefore("c"))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	fresh := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithInterruptBefore("c"))
	snap := latestState(t, c, "t")
	require.Equal(t, latestState(t, fresh, "t").Values, snap.Values)
	require.Equal(t, []string{"a", "b"}, snap.Values.Trail)
	require.Equal(t, []string{"c"}, snap.Next)

	_, err = c.UpdateState(t.Context(), state.Writes(trailField.Set([]string{"edit"})), "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap = latestState(t, c, "t")
	require.Equal(t, []string{"a", "b", "edit"}, snap.Values.Trail)
	require.Equal(t, []string{"c"}, snap.Next)
	require.Equal(t, latestState(t, fresh, "t").Values, snap.Values)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "edit", "c"}, out.Trail)

	// Replay from the checkpoint after a: b and c run again on a fork.
	var afterA string
	for _, s := range history(t, c, "t") {
		if s.Metadata.Source == checkpoint.SourceLoop && s.Metadata.Step == 1 {
			afterA = s.Config.CheckpointID
		}
	}
	require.NotEmpty(t, afterA)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(afterA))
	require.ErrorIs(t, err, graph.ErrInterrupted, "the fork stops before c again (c is not its first step)")
	snap = latestState(t, c, "t")
	require.Equal(t, []string{"a", "b"}, snap.Values.Trail)
	require.Equal(t, latestState(t, fresh, "t").Values, snap.Values)
	require.Equal(t, 2, cs.get("b"))
	require.Equal(t, 1, cs.get("a"))
	active, _, _, early := saver.snapshot()
	require.Zero(t, active)
	require.Empty(t, early)
}

// Mirrors test_pregel.py's checkpoint-events checks under durability="exit"
// ("Save no checkpoints for subgraphs when durability=exit"): a parent
// that runs a same-state subgraph twice leaves one checkpoint in the
// thread, its own final one; the subgraphs store nothing when they finish.
// A subgraph that stops (an interrupt) stores its checkpoint, so the
// parent's resume goes on inside it.
func TestDurabilityExitStoresNoCheckpointOfAFinishedSubgraph(t *testing.T) {
	t.Parallel()
	var puts sync.Map // namespace → count
	count := func(req checkpoint.PutRequest) error {
		n, _ := puts.LoadOrStore(req.Config.Namespace, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return nil
	}
	total := func() (n int64, namespaces int) {
		puts.Range(func(_, v any) bool { n += v.(*atomic.Int64).Load(); namespaces++; return true })
		return n, namespaces
	}
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", visit("x")).AddNode("y", visit("y")).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	g := graph.New(schema).AddSubgraph("sub1", inner).AddSubgraph("sub2", inner).
		AddEdge(graph.Start, "sub1").AddEdge("sub1", "sub2")
	saver := memory.New()
	c := mustCompile(t, g, graph.WithCheckpointer(hookedSaver{Saver: saver, before: count}), graph.WithDurability(graph.DurabilityExit))
	out, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{"in"})), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"in", "x", "y", "x", "y"}, out.Trail)
	n, namespaces := total()
	require.EqualValues(t, 1, n, "one checkpoint in the thread")
	require.Equal(t, 1, namespaces, "only the root namespace")
	require.Len(t, history(t, c, "t"), 1)

	// An interrupt inside the subgraph: its checkpoint is stored, and the
	// resume answers it.
	var cs calls
	asking := mustCompile(t, graph.New(schema).
		AddNode("x", visit("x")).AddNode("ask", askNode(&cs, "ask")).
		AddEdge(graph.Start, "x").AddEdge("x", "ask"))
	c2 := mustCompile(t, graph.New(schema).AddSubgraph("sub", asking).AddNode("after", visit("after")).
		AddEdge(graph.Start, "sub").AddEdge("sub", "after"),
		graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	_, err = c2.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	out, err = c2.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "after"}, out.Trail)
	require.Equal(t, []string{"yes"}, out.Items)
	require.Equal(t, 2, cs.get("ask"), "asked, then answered")
}
