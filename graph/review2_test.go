package graph_test

// Review 2: tests of DurabilityAsync, groupPending, replay-as-resume and the
// output of a run stopped by an interrupt (withFinished), and more
// behaviours ported from LangGraph's tests (test_pregel.py,
// test_async_durability.py, test_durable_retry.py, test_interruption.py,
// test_subgraph*.py, test_streaming*.py). A test marked
// t.Skip("BUG: …") fails against the current runtime; remove the Skip to
// see it fail.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// ---- helpers -------------------------------------------------------------

// r2Saver wraps a saver: it records which checkpoints were stored, how
// many Puts run at once, the PutWrites calls per task, and any PutWrites
// against a checkpoint not stored yet; hooks may block or fail calls.
type r2Saver struct {
	checkpoint.Saver
	beforePut    func(req checkpoint.PutRequest) error
	beforeWrites func(cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error

	mu         sync.Mutex
	stored     map[string]bool
	active     int
	maxActive  int
	puts       int
	writeCalls map[string]int
	early      []string // PutWrites against a checkpoint not stored (yet)
}

func newR2Saver() *r2Saver {
	return &r2Saver{Saver: memory.New(), stored: map[string]bool{}, writeCalls: map[string]int{}}
}

func (s *r2Saver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	s.mu.Lock()
	s.puts++
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()
	if s.beforePut != nil {
		if err := s.beforePut(req); err != nil {
			return checkpoint.Config{}, err
		}
	}
	cfg, err := s.Saver.Put(ctx, req)
	if err == nil {
		s.mu.Lock()
		s.stored[req.Checkpoint.ID] = true
		s.mu.Unlock()
	}
	return cfg, err
}

func (s *r2Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	s.mu.Lock()
	if !s.stored[cfg.CheckpointID] {
		s.early = append(s.early, cfg.CheckpointID)
	}
	s.writeCalls[taskID]++
	s.mu.Unlock()
	if s.beforeWrites != nil {
		if err := s.beforeWrites(cfg, taskID, ws); err != nil {
			return err
		}
	}
	return s.Saver.PutWrites(ctx, cfg, taskID, ws)
}

func (s *r2Saver) snapshot() (active, maxActive, puts int, early []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active, s.maxActive, s.puts, slices.Clone(s.early)
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

var allDurabilities = []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit}

// chainABC is Start → a → b → c, each node tracked by cs; b is replaceable.
func chainABC(cs *calls, b graph.NodeFunc[counter]) *graph.StateGraph[counter] {
	if b == nil {
		b = cs.track("b")
	}
	return graph.New(schema).
		AddNode("a", cs.track("a")).
		AddNode("b", b).
		AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
}

func latestStep(t *testing.T, c *graph.Compiled[counter], thread string) int {
	t.Helper()
	return parState(t, c, thread).Metadata.Step
}

// ---- Part A: DurabilityAsync ---------------------------------------------

// Under DurabilityAsync, the checkpoint of step 0 (after a) is stored while
// b runs. When that save fails, the run must end with the save's error,
// whatever else stops it in step 1 — the thread is not where the returned
// error says (an interrupt that was never stored cannot be resumed).
func TestReview2AsyncFailedSaveIsReportedWhateverStopsTheRun(t *testing.T) {
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
			saver := newR2Saver()
			saver.beforePut = func(req checkpoint.PutRequest) error {
				if isLoopStep(req, 0) {
					return errDisk
				}
				return nil
			}
			var cs calls
			c := mustCompile(t, chainABC(&cs, tc.b(&cs)), graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))
			_, err := c.Invoke(t.Context(), zero, append([]graph.RunOption{graph.WithThread("t")}, tc.opts...)...)
			require.ErrorIs(t, err, errDisk, "the failed save of step 0 must be reported")
			require.Equal(t, -1, latestStep(t, c, "t"), "the thread stays at its last stored checkpoint")
		})
	}
}

// In any durability, when the interrupt of an interrupted task cannot be
// saved, the run must not report a resumable interrupt: nothing was stored
// to resume.
func TestReview2InterruptWriteSaveFailureIsReported(t *testing.T) {
	t.Parallel()
	errWrites := errors.New("writes lost")
	saver := newR2Saver()
	saver.beforeWrites = func(cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
		for _, w := range ws {
			if w.Channel == checkpoint.InterruptChannel {
				return errWrites
			}
		}
		return nil
	}
	var cs calls
	g := graph.New(schema).
		AddNode("ok", cs.track("ok")).
		AddNode("ask", askNode(&cs, "ask")).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, errWrites)
}

// A task's writes are stored against the checkpoint holding it; under
// DurabilityAsync that checkpoint may still be in flight when the task
// finishes: the writes wait for it (never stored before it, never lost).
func TestReview2AsyncParallelWritesWaitForTheirCheckpoint(t *testing.T) {
	t.Parallel()
	b1Done := make(chan struct{})
	saver := newR2Saver()
	saver.beforePut = func(req checkpoint.PutRequest) error {
		if isLoopStep(req, 0) {
			return waitFor(b1Done, "b1 did not run while step 0 was stored")
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
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "b3", ne.Node)
	active, maxActive, _, early := saver.snapshot()
	require.Empty(t, early, "writes were stored against a checkpoint not stored yet")
	require.Zero(t, active, "a save outlived the run")
	require.Equal(t, 1, maxActive, "at most one checkpoint is in flight")

	snap := parState(t, c, "t")
	require.Equal(t, 0, snap.Metadata.Step)
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

// Mirrors test_async_durability_keeps_single_superstep_overlap and
// test_*_durability_*: every mode stores what it promises, at most one save
// runs at a time, none outlives the run, and the final state is the same.
func TestReview2DurabilityModesStoreWhatTheyPromise(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			saver := newR2Saver()
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
			for _, s := range parHistory(t, c, "t") {
				steps = append(steps, s.Metadata.Step)
			}
			switch d {
			case graph.DurabilityExit:
				// Documented as "only the checkpoint the run ends on"; the
				// input checkpoint is stored as well.
				require.Equal(t, []int{5, -1}, steps)
				require.Equal(t, 2, puts)
			default:
				require.Equal(t, []int{5, 4, 3, 2, 1, 0, -1}, steps)
				require.Equal(t, 7, puts)
			}
			// A fresh graph (no state cache) reads the same final state.
			fresh := mustCompile(t, g, graph.WithCheckpointer(saver))
			require.Equal(t, out, parState(t, fresh, "t").Values)
		})
	}
}

// Cancelling the run while the previous step's checkpoint is being stored
// in the background: the save completes (it ignores the cancellation), the
// run returns the context's error, and resuming runs only what is left.
func TestReview2CancelDuringBackgroundSaveKeepsFinishedSteps(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			cancelled := make(chan struct{})
			saver := newR2Saver()
			if d == graph.DurabilityAsync {
				saver.beforePut = func(req checkpoint.PutRequest) error {
					if isLoopStep(req, 0) {
						return waitFor(cancelled, "b did not run while step 0 was stored")
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
			c := mustCompile(t, chainABC(&cs, b), graph.WithCheckpointer(saver), graph.WithDurability(d))
			_, err := c.Invoke(ctx, zero, graph.WithThread("t"))
			require.ErrorIs(t, err, context.Canceled)
			require.Equal(t, 1, latestStep(t, c, "t"), "b's step finished and is stored")

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
func TestReview2StreamBreakThenResume(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			saver := newR2Saver()
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
			hist := parHistory(t, c, "t")
			for i := 0; i+1 < len(hist); i++ {
				require.Equal(t, hist[i+1].Config.CheckpointID, hist[i].Parent.CheckpointID)
			}
		})
	}
}

// Subgraphs under DurabilityAsync (the parent's, the subgraph's, or both):
// an interrupt inside the subgraph stops the parent, the resume finishes
// it, and every subgraph checkpoint names a parent checkpoint that was
// stored.
func TestReview2AsyncSubgraphInterruptResume(t *testing.T) {
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
			saver := newR2Saver()
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
			snap := parState(t, c, "t")
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
			for _, s := range parHistory(t, c, "t") {
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
func TestReview2AsyncThenUpdateStateAndReplay(t *testing.T) {
	t.Parallel()
	saver := newR2Saver()
	var cs calls
	g := chainABC(&cs, nil)
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync), graph.WithInterruptBefore("c"))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	fresh := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithInterruptBefore("c"))
	snap := parState(t, c, "t")
	require.Equal(t, parState(t, fresh, "t").Values, snap.Values)
	require.Equal(t, []string{"a", "b"}, snap.Values.Trail)
	require.Equal(t, []string{"c"}, snap.Next)

	_, err = c.UpdateState(t.Context(), state.Writes(trailField.Set([]string{"edit"})), "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap = parState(t, c, "t")
	require.Equal(t, []string{"a", "b", "edit"}, snap.Values.Trail)
	require.Equal(t, []string{"c"}, snap.Next)
	require.Equal(t, parState(t, fresh, "t").Values, snap.Values)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "edit", "c"}, out.Trail)

	// Replay from the checkpoint after a: b and c run again on a fork.
	var afterA string
	for _, s := range parHistory(t, c, "t") {
		if s.Metadata.Source == checkpoint.SourceLoop && s.Metadata.Step == 0 {
			afterA = s.Config.CheckpointID
		}
	}
	require.NotEmpty(t, afterA)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(afterA))
	require.ErrorIs(t, err, graph.ErrInterrupted, "the fork stops before c again (c is not its first step)")
	snap = parState(t, c, "t")
	require.Equal(t, []string{"a", "b"}, snap.Values.Trail)
	require.Equal(t, parState(t, fresh, "t").Values, snap.Values)
	require.Equal(t, 2, cs.get("b"))
	require.Equal(t, 1, cs.get("a"))
	active, _, _, early := saver.snapshot()
	require.Zero(t, active)
	require.Empty(t, early)
}

// ---- Part A: withFinished and groupPending -------------------------------

// A step with a finished task ("ok") and a task that calls Interrupt twice
// ("ask"), in every durability. Each stop returns the state with ok's
// writes (as State shows it), the stored checkpoint does not hold them (they
// are pending writes), and the final state has them exactly once: ok never
// runs again, though ask was interrupted twice (groupPending keeps ok's
// writes and drops nothing it needs).
func TestReview2InterruptOutputAndResumeApplyFinishedWritesOnce(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).
				AddNode("ok", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("ok")
					return state.Writes(trailField.Set([]string{"ok"}), totalField.Set(5)), nil
				}).
				AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("ask")
					v1, err := graph.Interrupt[string](ctx, "first?")
					if err != nil {
						return state.Update[counter]{}, err
					}
					v2, err := graph.Interrupt[string](ctx, "second?")
					if err != nil {
						return state.Update[counter]{}, err
					}
					return state.Writes(itemsField.Set([]string{v1, v2}), totalField.Set(1)), nil
				}).
				AddNode("end", cs.track("end")).
				AddEdge(graph.Start, "ok").AddEdge(graph.Start, "ask").
				AddJoin([]string{"ok", "ask"}, "end")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))

			check := func(out counter, err error, want string) {
				t.Helper()
				var ie *graph.InterruptError
				require.ErrorAs(t, err, &ie)
				require.Len(t, ie.Interrupts, 1)
				require.Equal(t, want, ie.Interrupts[0].Value)
				require.Equal(t, []string{"ok"}, out.Trail)
				require.Equal(t, 5, out.Total)
				snap := parState(t, c, "t")
				require.Equal(t, out, snap.Values, "Invoke's output differs from State")
				require.Equal(t, []string{"ask"}, snap.Next)
				pinned, err := c.State(t.Context(), graph.WithThread("t"), graph.WithCheckpoint(snap.Config.CheckpointID))
				require.NoError(t, err)
				require.Empty(t, pinned.Values.Trail, "the stored checkpoint holds ok's pending writes")
				require.Zero(t, pinned.Values.Total)
			}
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			check(out, err, "first?")
			out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("x"))
			check(out, err, "second?")
			out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("y"))
			require.NoError(t, err)
			require.Equal(t, []string{"ok", "end"}, out.Trail)
			require.Equal(t, []string{"x", "y"}, out.Items)
			require.Equal(t, 6, out.Total, "ok's writes applied exactly once")
			require.Equal(t, 1, cs.get("ok"))
			require.Equal(t, 3, cs.get("ask"))
			require.Equal(t, 1, cs.get("end"))
			require.Empty(t, parState(t, c, "t").Interrupts)
		})
	}
}

// groupPending with tasks interrupted twice beside a finished sibling:
// a Send task, and a subgraph whose two nodes interrupt in turn.
func TestReview2InterruptedTwiceBesideFinishedSibling(t *testing.T) {
	t.Parallel()
	t.Run("send", func(t *testing.T) {
		t.Parallel()
		var cs calls
		g := graph.New(schema).
			AddNode("split", cs.track("split")).
			AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
				cs.inc("work:" + s.Last)
				if s.Last != "ask" {
					return state.Writes(itemsField.Set([]string{s.Last})), nil
				}
				v1, err := graph.Interrupt[string](ctx, "1?")
				if err != nil {
					return state.Update[counter]{}, err
				}
				v2, err := graph.Interrupt[string](ctx, "2?")
				if err != nil {
					return state.Update[counter]{}, err
				}
				return state.Writes(itemsField.Set([]string{v1 + v2})), nil
			}).
			AddEdge(graph.Start, "split").
			AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
				return []graph.Send[counter]{graph.SendTo("work", counter{Last: "p"}), graph.SendTo("work", counter{Last: "ask"})}, nil
			}), "work")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("a"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		require.Equal(t, []string{"p"}, out.Items)
		out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("b"))
		require.NoError(t, err)
		require.Equal(t, []string{"p", "ab"}, out.Items)
		require.Equal(t, 1, cs.get("work:p"))
		require.Equal(t, 3, cs.get("work:ask"))
	})
	t.Run("subgraph", func(t *testing.T) {
		t.Parallel()
		var cs calls
		inner := mustCompile(t, graph.New(schema).
			AddNode("ask1", askNode(&cs, "ask1")).AddNode("ask2", askNode(&cs, "ask2")).
			AddEdge(graph.Start, "ask1").AddEdge("ask1", "ask2"))
		g := graph.New(schema).AddSubgraph("sub", inner).AddNode("side", cs.track("side")).
			AddEdge(graph.Start, "sub").AddEdge(graph.Start, "side")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("v1"))
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		require.Len(t, ie.Interrupts, 1)
		require.Equal(t, "ask2?", ie.Interrupts[0].Value)
		require.Equal(t, []string{"side"}, out.Trail)
		out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("v2"))
		require.NoError(t, err)
		require.Equal(t, []string{"side"}, out.Trail)
		require.Equal(t, []string{"v1", "v2"}, out.Items)
		require.Equal(t, 1, cs.get("side"))
		require.Equal(t, 2, cs.get("ask1"))
		require.Equal(t, 2, cs.get("ask2"))
	})
}

// A static interrupt-before saved as a pending write, on a step with a
// task that already finished on an earlier attempt: UpdateState (a pure
// edit) carries the finished task over, and the resume runs only the
// interrupted task.
func TestReview2StaticInterruptBesideFailedStepThenUpdateState(t *testing.T) {
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
	snap := parState(t, c, "t")
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

// ---- Part A: replay counts as a resume -----------------------------------

// Replaying a checkpoint skips the interrupt-before of its first step only:
// a later step stops again at its interrupt-before (LangGraph marks the
// channels seen for interrupts when it resumes, so only the first tick is
// exempt).
func TestReview2ReplaySkipsOnlyTheFirstInterruptBefore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		fromStep  int // the pinned checkpoint's step
		wantTrail []string
		wantNext  []string // nil: the run ends
	}{
		{"from the input: a runs, stops before b again", -1, []string{"a"}, []string{"b"}},
		{"from after a: b runs, stops before c", 0, []string{"a", "b"}, []string{"c"}},
		{"from the stop before c: c runs", 1, []string{"a", "b", "c"}, nil},
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
			for _, s := range parHistory(t, c, "t") {
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
			snap := parState(t, c, "t")
			require.Equal(t, tc.wantNext, snap.Next)
		})
	}
}

// ---- Part B: streaming ----------------------------------------------------

// Mirrors test_doubly_nested_graph_state / stream(subgraphs=True) with
// stream_mode="updates": the updates of a subgraph's subgraph come tagged
// with the namespace path, each level's updates before the update of the
// task that ran it.
func TestReview2StreamUpdatesOfNestedSubgraphs(t *testing.T) {
	t.Parallel()
	grand := mustCompile(t, graph.New(schema).AddNode("g1", visit("g1")).AddNode("g2", visit("g2")).
		AddEdge(graph.Start, "g1").AddEdge("g1", "g2"))
	child := mustCompile(t, graph.New(schema).AddNode("c1", visit("c1")).AddSubgraph("grand", grand).
		AddEdge(graph.Start, "c1").AddEdge("c1", "grand"))
	g := graph.New(schema).AddNode("p1", visit("p1")).AddSubgraph("child", child).AddNode("p2", visit("p2")).
		AddEdge(graph.Start, "p1").AddEdge("p1", "child").AddEdge("child", "p2")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var got []string
	var nss []string
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		got = append(got, ev.Node)
		nss = append(nss, ev.Namespace)
	}
	require.Equal(t, []string{"p1", "c1", "g1", "g2", "grand", "child", "p2"}, got)
	require.Empty(t, nss[0])
	require.Regexp(t, `^child:[^|]+$`, nss[1])
	require.Regexp(t, `^child:[^|]+\|grand:[^|]+$`, nss[2])
	require.Equal(t, nss[2], nss[3])
	require.True(t, strings.HasPrefix(nss[2], nss[1]+"|"))
	require.Equal(t, nss[1], nss[4])
	require.Empty(t, nss[5])
	require.Empty(t, nss[6])

	// Without WithSubgraphs only the parent's own updates.
	got = nil
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t2"), graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		got = append(got, ev.Node)
	}
	require.Equal(t, []string{"p1", "child", "p2"}, got)
}

// Mirrors test_get_stream_writer / stream_mode="custom": what a node
// emits arrives in order, tagged with the node and step, before the node's
// update; a subgraph's custom events come with its namespace when
// subgraphs are streamed, and not at all otherwise.
func TestReview2StreamCustomWriter(t *testing.T) {
	t.Parallel()
	emitter := func(name string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			graph.Emit(ctx, name+":1")
			graph.Emit(ctx, name+":2")
			return state.Writes(trailField.Set([]string{name})), nil
		}
	}
	inner := mustCompile(t, graph.New(schema).AddNode("x", emitter("x")).AddEdge(graph.Start, "x"))
	g := graph.New(schema).AddNode("a", emitter("a")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "a").AddEdge("a", "sub")
	c := mustCompile(t, g)
	for _, subgraphs := range []bool{false, true} {
		opts := []graph.RunOption{graph.StreamModes(graph.Custom, graph.Updates)}
		if subgraphs {
			opts = append(opts, graph.WithSubgraphs())
		}
		var got []string
		for ev, err := range c.Stream(t.Context(), zero, opts...) {
			require.NoError(t, err)
			switch ev.Mode {
			case graph.Custom:
				require.NotEmpty(t, ev.Node)
				tag := ""
				if ev.Namespace != "" {
					tag = "sub|"
				}
				got = append(got, fmt.Sprintf("%s%v@%s/%d", tag, ev.Custom, ev.Node, ev.Step))
			case graph.Updates:
				got = append(got, "update:"+ev.Node)
			}
		}
		want := []string{"a:1@a/0", "a:2@a/0", "update:a", "update:sub"}
		if subgraphs {
			want = []string{"a:1@a/0", "a:2@a/0", "update:a", "sub|x:1@x/0", "sub|x:2@x/0", "update:x", "update:sub"}
		}
		require.Equal(t, want, got, "subgraphs=%v", subgraphs)
	}
	// No Custom mode: Emit does nothing.
	for ev, err := range c.Stream(t.Context(), zero, graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		require.Equal(t, graph.Updates, ev.Mode)
	}
}

// Mirrors test_debug_retry / stream_mode="debug" (task and task_result
// payloads): each task's start, then its result with its error and the
// attempts it took; a resumed task whose writes were saved is reported as
// cached and does not run.
func TestReview2StreamTasksPayloads(t *testing.T) {
	t.Parallel()
	var fails atomic.Int64
	var down atomic.Bool
	down.Store(true)
	g := graph.New(schema).
		AddNode("retry", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fails.Add(1) < 3 {
				return state.Update[counter]{}, errors.New("transient")
			}
			return state.Writes(trailField.Set([]string{"retry"})), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond})).
		AddNode("bad", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if down.Load() {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(trailField.Set([]string{"bad"})), nil
		}).
		AddEdge(graph.Start, "retry").AddEdge(graph.Start, "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	type res struct {
		attempts int
		err      string
		cached   bool
	}
	collect := func() (starts []string, results map[string]res, streamErr error) {
		results = map[string]res{}
		for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
			if err != nil {
				streamErr = err
				continue
			}
			require.Equal(t, graph.Tasks, ev.Mode)
			require.NotEmpty(t, ev.TaskID)
			require.Equal(t, -1, ev.Task.Send)
			if !ev.Task.Result {
				require.NotContains(t, results, ev.Node, "a result came before its start")
				starts = append(starts, ev.Node)
				continue
			}
			r := res{attempts: ev.Task.Attempts, cached: ev.Task.Cached}
			if ev.Task.Err != nil {
				r.err = ev.Task.Err.Error()
			}
			results[ev.Node] = r
		}
		return starts, results, streamErr
	}
	starts, results, err := collect()
	require.Error(t, err)
	require.ElementsMatch(t, []string{"bad", "retry"}, starts)
	require.Equal(t, 3, results["retry"].attempts)
	require.Empty(t, results["retry"].err)
	require.Equal(t, 1, results["bad"].attempts)
	require.Contains(t, results["bad"].err, "down")

	down.Store(false)
	starts, results, err = collect()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"bad", "retry"}, starts)
	require.True(t, results["retry"].cached, "retry's saved writes are reused")
	require.False(t, results["bad"].cached)
	require.EqualValues(t, 3, fails.Load(), "retry did not run again")
}

// The Checkpoints stream yields exactly the checkpoints History holds, in
// order, in every durability (under async each is yielded once stored,
// that is, while or after the next step runs).
func TestReview2CheckpointsStreamMatchesHistory(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			var cs calls
			c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			var ids []string
			var order []string
			for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Checkpoints, graph.Values)) {
				require.NoError(t, err)
				switch ev.Mode {
				case graph.Checkpoints:
					ids = append(ids, ev.Checkpoint.CheckpointID)
					order = append(order, fmt.Sprintf("cp%d", ev.Metadata.Step))
				case graph.Values:
					order = append(order, fmt.Sprintf("v%d", ev.Step))
				}
			}
			var hist []string
			for _, s := range parHistory(t, c, "t") {
				hist = append([]string{s.Config.CheckpointID}, hist...)
			}
			require.Equal(t, hist, ids)
			switch d {
			case graph.DurabilitySync:
				require.Equal(t, []string{"cp-1", "v-1", "cp0", "v0", "cp1", "v1", "cp2", "v2"}, order)
			case graph.DurabilityAsync:
				// Each checkpoint is announced once stored: after the next
				// step's tasks, before its values.
				require.Equal(t, []string{"v-1", "cp-1", "v0", "cp0", "v1", "cp1", "v2", "cp2"}, order)
			}
		})
	}
}

// ---- Part B: retries -------------------------------------------------------

// Mirrors test_retry.py (retry_on) and test_durable_retry.py: RetryOn
// decides what is retried, MaxAttempts counts the first run, a retried
// success is applied (and saved) once, interrupts and cancellation are
// never retried.
func TestReview2RetryPolicySemantics(t *testing.T) {
	t.Parallel()
	errTransient := errors.New("transient")
	errPermanent := errors.New("permanent")
	cases := []struct {
		name         string
		failures     []error // the errors of the first attempts, then success
		policy       graph.RetryPolicy
		wantErr      error
		wantAttempts int
	}{
		{"succeeds on the third attempt", []error{errTransient, errTransient}, graph.RetryPolicy{MaxAttempts: 5}, nil, 3},
		{"gives up after MaxAttempts", []error{errTransient, errTransient, errTransient, errTransient}, graph.RetryPolicy{MaxAttempts: 3}, errTransient, 3},
		{"RetryOn refuses", []error{errPermanent}, graph.RetryPolicy{MaxAttempts: 5, RetryOn: func(err error) bool { return errors.Is(err, errTransient) }}, errPermanent, 1},
		{"RetryOn accepts, then refuses", []error{errTransient, errPermanent}, graph.RetryPolicy{MaxAttempts: 5, RetryOn: func(err error) bool { return errors.Is(err, errTransient) }}, errPermanent, 2},
		{"default MaxAttempts is 3", []error{errTransient, errTransient, errTransient}, graph.RetryPolicy{}, errTransient, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.policy.InitialInterval = time.Microsecond
			saver := newR2Saver()
			var attempts atomic.Int64
			g := graph.New(schema).
				AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
					i := int(attempts.Add(1)) - 1
					if i < len(tc.failures) {
						return state.Update[counter]{}, tc.failures[i]
					}
					return state.Writes(totalField.Set(10), trailField.Set([]string{"flaky"})), nil
				}, graph.WithRetry(tc.policy)).
				AddNode("side", visit("side")).
				AddEdge(graph.Start, "flaky").AddEdge(graph.Start, "side")
			c := mustCompile(t, g, graph.WithCheckpointer(saver))
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.EqualValues(t, tc.wantAttempts, attempts.Load())
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				var ne *graph.NodeError
				require.ErrorAs(t, err, &ne)
				require.Equal(t, "flaky", ne.Node)
				require.Equal(t, tc.wantAttempts, ne.Attempts)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 10, out.Total, "the retried success is applied once")
			require.Equal(t, []string{"flaky", "side"}, out.Trail)
			snap := parState(t, c, "t")
			require.Empty(t, snap.Next)
			saver.mu.Lock()
			defer saver.mu.Unlock()
			for id, n := range saver.writeCalls {
				require.Equal(t, 1, n, "task %s's writes were saved %d times", id, n)
			}
		})
	}
	t.Run("interrupt is not retried", func(t *testing.T) {
		t.Parallel()
		var cs calls
		g := graph.New(schema).AddNode("ask", askNode(&cs, "ask"), graph.WithRetry(graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Microsecond})).
			AddEdge(graph.Start, "ask")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		require.Equal(t, 1, cs.get("ask"))
	})
	t.Run("cancellation is not retried", func(t *testing.T) {
		t.Parallel()
		var n atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		g := graph.New(schema).AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n.Add(1)
			cancel()
			return state.Update[counter]{}, ctx.Err()
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Microsecond})).AddEdge(graph.Start, "slow")
		_, err := mustCompile(t, g).Invoke(ctx, zero)
		require.ErrorIs(t, err, context.Canceled)
		require.EqualValues(t, 1, n.Load())
	})
}

// ---- Part B: routers -------------------------------------------------------

// Mirrors test_conditional_edge errors (a path function that raises, or
// returns a node that does not exist): the run fails with a *RouteError
// naming the node and step, the failed step is not stored, and a resume
// (with the router fixed) completes without applying the step twice.
func TestReview2RouterErrors(t *testing.T) {
	t.Parallel()
	errRoute := errors.New("cannot decide")
	cases := []struct {
		name     string
		router   func(broken bool) (graph.Route[counter], error)
		wantErr  error
		wantText string
	}{
		{"router returns an error", func(broken bool) (graph.Route[counter], error) {
			if broken {
				return graph.Route[counter]{}, errRoute
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, errRoute, "cannot decide"},
		{"router panics", func(broken bool) (graph.Route[counter], error) {
			if broken {
				panic("kaboom")
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, nil, "router panicked: kaboom"},
		{"router returns an undeclared target", func(broken bool) (graph.Route[counter], error) {
			if broken {
				return graph.Route[counter]{To: []string{"nowhere"}}, nil
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, graph.ErrInvalidRoute, `"nowhere"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var broken atomic.Bool
			broken.Store(true)
			var cs calls
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("a")
					return state.Writes(totalField.Set(1), trailField.Set([]string{"a"})), nil
				}).
				AddNode("b", cs.track("b")).
				AddEdge(graph.Start, "a").
				AddConditionalEdges("a", func(ctx context.Context, s counter) (graph.Route[counter], error) {
					return tc.router(broken.Load())
				}, "b", graph.End)
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			var re *graph.RouteError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "a", re.Node)
			require.Equal(t, 0, re.Step)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.ErrorContains(t, err, tc.wantText)
			snap := parState(t, c, "t")
			require.Equal(t, -1, snap.Metadata.Step, "the failed step is not stored")
			require.Equal(t, []string{"a"}, snap.Next)

			broken.Store(false)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b"}, out.Trail)
			require.Equal(t, 1, out.Total)
		})
	}
}

// ---- Part B: Send ----------------------------------------------------------

// Mirrors test_send_sequences / recursion limit with Send: each step of
// Sends counts once toward the limit however many Sends it runs, the error
// names the pending node, and the thread resumes with a higher limit.
func TestReview2RecursionLimitWithSends(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	g := graph.New(schema).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			runs.Add(1)
			upd := state.Writes(itemsField.Set([]string{fmt.Sprintf("%d/%s", s.N, s.Last)}))
			if s.N < 4 && s.Last == "l" {
				// each generation: two Sends, one of which continues
				upd.Sends = []graph.Send[counter]{graph.SendTo("work", counter{N: s.N + 1, Last: "l"}), graph.SendTo("work", counter{N: s.N + 1, Last: "r"})}
			}
			return upd, nil
		}, graph.WithDestinations("work")).
		AddConditionalEdges(graph.Start, graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{N: 0, Last: "l"}), graph.SendTo("work", counter{N: 0, Last: "r"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithRecursionLimit(3))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	require.ErrorContains(t, err, "work")
	require.EqualValues(t, 6, runs.Load(), "three steps of two Sends each")
	snap := parState(t, c, "t")
	require.Equal(t, []string{"work", "work"}, snap.Next)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithRecursionLimit(10))
	require.NoError(t, err)
	require.EqualValues(t, 10, runs.Load())
	require.Equal(t, []string{"0/l", "0/r", "1/l", "1/r", "2/l", "2/r", "3/l", "3/r", "4/l", "4/r"}, out.Items)
}

// Mirrors test_send_react_interrupt with interrupt_after: a static
// interrupt after a node run by Sends stops after the step of all its
// Sends, with their writes applied; the resume goes on without running
// them again.
func TestReview2InterruptAfterSendTasks(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("reduce", cs.track("reduce")).
		AddConditionalEdges(graph.Start, graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "x"}), graph.SendTo("work", counter{Last: "y"}), graph.SendTo("work", counter{Last: "z"})}, nil
		}), "work").
		AddEdge("work", "reduce")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptAfter("work"))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.NotEmpty(t, ie.Interrupts)
	for _, in := range ie.Interrupts {
		require.Equal(t, "work", in.Node)
		require.Equal(t, "after", in.When)
	}
	require.Equal(t, []string{"x", "y", "z"}, out.Items)
	require.Equal(t, []string{"reduce"}, parState(t, c, "t").Next)
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y", "z"}, out.Items)
	require.Equal(t, []string{"reduce"}, out.Trail)
	require.Equal(t, 3, cs.get("work"))
	require.Equal(t, 1, cs.get("reduce"))
}

// ---- Part B: nested subgraphs ---------------------------------------------

// Mirrors test_doubly_nested_graph_interrupts: an interrupt two levels
// down stops the root with the innermost payload; the root's State lists
// the child task as next; each level's checkpoints live in their own
// namespace; resuming runs only the interrupted node at each level.
func TestReview2DoublyNestedSubgraphInterrupt(t *testing.T) {
	t.Parallel()
	var cs calls
	saver := newR2Saver()
	grand := mustCompile(t, graph.New(schema).
		AddNode("g1", cs.track("g1")).AddNode("ask", askNode(&cs, "ask")).AddNode("g2", cs.track("g2")).
		AddEdge(graph.Start, "g1").AddEdge("g1", "ask").AddEdge("ask", "g2"))
	child := mustCompile(t, graph.New(schema).
		AddNode("c1", cs.track("c1")).AddSubgraph("grand", grand).AddNode("c2", cs.track("c2")).
		AddEdge(graph.Start, "c1").AddEdge("c1", "grand").AddEdge("grand", "c2"))
	g := graph.New(schema).
		AddNode("p1", cs.track("p1")).AddSubgraph("child", child).AddNode("p2", cs.track("p2")).
		AddEdge(graph.Start, "p1").AddEdge("p1", "child").AddEdge("child", "p2")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "ask?", ie.Interrupts[0].Value)
	require.Equal(t, "ask", ie.Interrupts[0].Node)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"child"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, []string{"p1"}, snap.Values.Trail)

	// The child's namespace holds its own state: c1 ran, grand is next.
	childNS := "child:" + snap.Tasks[0].ID
	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t", Namespace: childNS})
	require.NoError(t, err)
	require.Equal(t, 0, tup.Metadata.Step)
	require.Equal(t, []string{"c1"}, tup.Metadata.Nodes)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "c1", "g1", "g2", "c2", "p2"}, out.Trail)
	require.Equal(t, []string{"yes"}, out.Items)
	for name, n := range map[string]int{"p1": 1, "c1": 1, "g1": 1, "ask": 2, "g2": 1, "c2": 1, "p2": 1} {
		require.Equal(t, n, cs.get(name), name)
	}
}

// Mirrors test_nested_graph_interrupts_parallel: two subgraph tasks in one
// step both interrupt; both are pending, a single Resume is ambiguous, and
// answering them by id finishes both without re-running their finished
// inner nodes.
func TestReview2ParallelSubgraphInterruptsByID(t *testing.T) {
	t.Parallel()
	var cs calls
	mk := func(prefix string) *graph.Compiled[counter] {
		return mustCompile(t, graph.New(schema).
			AddNode(prefix+"1", cs.track(prefix+"1")).AddNode(prefix+"ask", askNode(&cs, prefix+"ask")).
			AddEdge(graph.Start, prefix+"1").AddEdge(prefix+"1", prefix+"ask"))
	}
	g := graph.New(schema).AddSubgraph("left", mk("l")).AddSubgraph("right", mk("r")).AddNode("end", cs.track("end")).
		AddEdge(graph.Start, "left").AddEdge(graph.Start, "right").AddJoin([]string{"left", "right"}, "end")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	// The input makes trail and items non-empty: see
	// TestReview2ParallelSubgraphsAppendToAnEmptyField for the empty case.
	_, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{"in"}), itemsField.Set([]string{"in"})), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("x"))
	require.ErrorIs(t, err, graph.ErrAmbiguousResume)
	answers := map[string]any{}
	for _, in := range ie.Interrupts {
		answers[in.ID] = "ans-" + in.Node
	}
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.ResumeByID(answers))
	require.NoError(t, err)
	require.Equal(t, []string{"in", "ans-lask", "ans-rask"}, out.Items)
	require.Equal(t, []string{"in", "l1", "r1", "end"}, out.Trail)
	for name, n := range map[string]int{"l1": 1, "r1": 1, "lask": 2, "rask": 2, "end": 1} {
		require.Equal(t, n, cs.get(name), name)
	}
}

// A subgraph's update appends what it appended to an append field, like a
// node's — also when the field was empty (nil) in the parent. Two
// subgraphs appending in one step both count, and a sibling node's append
// in the same step is kept.
func TestReview2ParallelSubgraphsAppendToAnEmptyField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		g    func() *graph.StateGraph[counter]
		want []string
	}{
		{"two subgraphs", func() *graph.StateGraph[counter] {
			l := mustCompile(t, graph.New(schema).AddNode("l", visit("l")).AddEdge(graph.Start, "l"))
			r := mustCompile(t, graph.New(schema).AddNode("r", visit("r")).AddEdge(graph.Start, "r"))
			return graph.New(schema).AddSubgraph("left", l).AddSubgraph("right", r).
				AddEdge(graph.Start, "left").AddEdge(graph.Start, "right")
		}, []string{"l", "r"}},
		{"a subgraph and a node", func() *graph.StateGraph[counter] {
			l := mustCompile(t, graph.New(schema).AddNode("l", visit("l")).AddEdge(graph.Start, "l"))
			return graph.New(schema).AddSubgraph("left", l).AddNode("side", visit("side")).
				AddEdge(graph.Start, "left").AddEdge(graph.Start, "side")
		}, []string{"l", "side"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := mustCompile(t, tc.g()).Invoke(t.Context(), state.Writes(nField.Set(1)))
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Trail)
		})
	}
}

// Mirrors LangGraph's time travel with interrupts (invoke(Command(resume=v),
// config with a past checkpoint_id)): replaying a checkpoint whose task is
// interrupted, with a resume value, answers the interrupt on the new
// branch. Here the value must at least not be dropped silently.
func TestReview2ReplayWithResumeAnswersTheInterrupt(t *testing.T) {
	t.Parallel()
	t.Run("by id", func(t *testing.T) {
		t.Parallel()
		var cs calls
		c := mustCompile(t, chainABC(&cs, askNode(&cs, "b")), graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		var ie *graph.InterruptError
		require.ErrorAs(t, err, &ie)
		pinned := parState(t, c, "t").Config.CheckpointID
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
		pinned := parState(t, c, "t").Config.CheckpointID
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
	pinned := parState(t, c, "t").Config.CheckpointID
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(pinned), graph.Resume("v"))
	require.NoError(t, err)
	require.Equal(t, []string{"v"}, out.Items)
	require.Equal(t, []string{"a", "c"}, out.Trail)
}
