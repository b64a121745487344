package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestResumeDoesNotRerunFinishedSiblings(t *testing.T) {
	t.Parallel()
	var okCalls, flakyCalls, afterCalls atomic.Int64
	fail := atomic.Bool{}
	fail.Store(true)
	g := graph.New(schema).
		AddNode("ok", counted(&okCalls, visit("ok"))).
		AddNode("flaky", counted(&flakyCalls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("service down")
			}
			return state.Writes(trailField.Set([]string{"flaky"})), nil
		})).
		AddNode("after", counted(&afterCalls, visit("after"))).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "flaky").AddJoin([]string{"ok", "flaky"}, "after")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "flaky", ne.Node)
	require.NotEmpty(t, ne.TaskID)

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"flaky"}, snap.Next)
	require.Equal(t, []string{"ok"}, snap.Values.Trail) // finished sibling's writes applied
	require.Len(t, snap.Tasks, 2)
	require.Contains(t, snap.Tasks[0].Error, "service down")
	require.True(t, snap.Tasks[1].Done)

	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"flaky", "ok", "after"}, out.Trail)
	require.EqualValues(t, 1, okCalls.Load())
	require.EqualValues(t, 2, flakyCalls.Load())
	require.EqualValues(t, 1, afterCalls.Load())
}

// Mirrors test_pending_writes_resume (test_pregel.py, parametrized over
// durability), with its expected values: "one" and "two" run from START;
// one succeeds, two fails after its two attempts. The latest state is the
// loop checkpoint of step 0 with one's write applied (1+2 = 3), next
// ("two",), tasks one (result {value: 2}) and two (its error); pinned to
// that checkpoint, no pending write is applied and next is ("one", "two").
// A resume that fails again runs only two (two more attempts) and stores
// no checkpoint; one that succeeds gives 1+2+3 = 6 at step 1, and the
// thread has 3 checkpoints (input, loop 0, loop 1), 2 under exit (no
// input checkpoint).
func TestFailedStepKeepsFinishedWritesPendingAndResumes(t *testing.T) {
	t.Parallel()
	for _, d := range []struct {
		name string
		mode graph.Durability
		hist int
	}{{"sync", graph.DurabilitySync, 3}, {"async", graph.DurabilityAsync, 3}, {"exit", graph.DurabilityExit, 2}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			var fail atomic.Bool
			fail.Store(true)
			g := graph.New(schema).
				AddNode("one", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("one")
					return state.Writes(totalField.Set(2)), nil
				}).
				AddNode("two", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("two")
					if fail.Load() {
						return state.Update[counter]{}, errors.New("I'm not good")
					}
					return state.Writes(totalField.Set(3)), nil
				}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})).
				AddEdge(graph.Start, "one").AddEdge(graph.Start, "two")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d.mode))
			_, err := c.Invoke(t.Context(), state.Writes(totalField.Set(1)), graph.WithThread("t"))
			require.ErrorContains(t, err, "I'm not good")
			require.Equal(t, 1, cs.get("one"))
			require.Equal(t, 2, cs.get("two"))

			snap := latestState(t, c, "t")
			require.Equal(t, 3, snap.Values.Total, "one's pending write is applied to the latest state")
			require.Equal(t, []string{"two"}, snap.Next)
			require.Equal(t, checkpoint.SourceLoop, snap.Metadata.Source)
			require.Equal(t, 0, snap.Metadata.Step, "the failed step saved no checkpoint")
			require.Len(t, snap.Tasks, 2)
			require.Equal(t, "one", snap.Tasks[0].Node)
			require.True(t, snap.Tasks[0].Done)
			require.Equal(t, map[string]any{"total": 2}, snap.Tasks[0].Result)
			require.Equal(t, "two", snap.Tasks[1].Node)
			require.Contains(t, snap.Tasks[1].Error, "I'm not good")
			pinned, err := c.State(t.Context(), graph.WithThread("t"), graph.WithCheckpoint(snap.Config.CheckpointID))
			require.NoError(t, err)
			require.Equal(t, 1, pinned.Values.Total, "a pinned state applies no pending write")
			require.Equal(t, []string{"one", "two"}, pinned.Next)

			_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.ErrorContains(t, err, "I'm not good")
			require.Equal(t, 1, cs.get("one"), "one finished before and is not run again")
			require.Equal(t, 4, cs.get("two"), "two attempts before, two now")
			require.Equal(t, snap.Metadata, latestState(t, c, "t").Metadata, "no new checkpoint")

			fail.Store(false)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, 6, out.Total)
			require.Equal(t, 1, cs.get("one"))
			require.Equal(t, 5, cs.get("two"))
			hist := history(t, c, "t")
			require.Len(t, hist, d.hist)
			require.Equal(t, 1, hist[0].Metadata.Step)
			require.Equal(t, checkpoint.SourceLoop, hist[0].Metadata.Source)
			require.Equal(t, []string{"one", "two"}, hist[0].Metadata.Nodes)
			require.Equal(t, hist[1].Config.CheckpointID, hist[0].Parent.CheckpointID)
			require.Equal(t, 0, hist[1].Metadata.Step)
			if d.mode != graph.DurabilityExit {
				require.Equal(t, checkpoint.SourceInput, hist[2].Metadata.Source)
				require.Equal(t, -1, hist[2].Metadata.Step)
			}
		})
	}
}

// Mirrors LangGraph's pending-write matching (PregelLoop: a task with
// successful writes is done, whatever ERROR write it also has): two
// parallel tasks fail; on the first resume one of them succeeds while the
// other fails again; on the second resume the one that succeeded must not
// run a third time.
func TestTaskFixedOnResumeIsNotRerunWhileSiblingStillFails(t *testing.T) {
	t.Parallel()
	var cs calls
	var aFails, bFails atomic.Int64
	aFails.Store(1)
	bFails.Store(2)
	flaky := func(name string, fails *atomic.Int64) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc(name)
			if fails.Add(-1) >= 0 {
				return state.Update[counter]{}, errors.New(name + " failed")
			}
			return state.Writes(itemsField.Set([]string{name})), nil
		}
	}
	g := graph.New(schema).AddNode("a", flaky("a", &aFails)).AddNode("b", flaky("b", &bFails)).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"b"}, snap.Next, "a succeeded on the first resume")
	require.Equal(t, []string{"a"}, snap.Values.Items)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Items)
	require.Equal(t, 2, cs.get("a"), "a succeeded on the first resume and ran again on the second")
	require.Equal(t, 3, cs.get("b"))
}

// Mirrors LangGraph's "invoke with new input discards the pending tasks"
// (PregelLoop._first: discard_tasks on input): a thread interrupted before
// b, given new input, starts again from START; the old pending b does not
// also run.
func TestNewInputDiscardsPendingTasks(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("1")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Writes(lastField.Set("2")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.Equal(t, []string{"a", "a"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "a", "b"}, out.Trail)
	require.Equal(t, 1, cs.get("b"))
}

func TestResumeIsAmbiguousWithSeveralInterrupts(t *testing.T) {
	t.Parallel()
	ask := func(ctx context.Context, s counter) (state.Update[counter], error) {
		v, err := graph.Interrupt[string](ctx, "name?")
		if err != nil {
			return state.Update[counter]{}, err
		}
		return state.Writes(itemsField.Set([]string{v})), nil
	}
	g := graph.New(schema).AddNode("x", ask).AddNode("y", ask).
		AddEdge(graph.Start, "x").AddEdge(graph.Start, "y")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("?"))
	require.ErrorIs(t, err, graph.ErrAmbiguousResume)
	require.ErrorContains(t, err, "2 interrupts are pending")
	require.ErrorContains(t, err, "needs its interrupt id")
	require.ErrorContains(t, err, "ResumeByID")
	ids := map[string]any{}
	for _, in := range ie.Interrupts {
		ids[in.ID] = "for " + in.Node
		require.ErrorContains(t, err, fmt.Sprintf("%s (node %q)", in.ID, in.Node), "the error lists every pending id")
	}
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.ResumeByID(ids))
	require.NoError(t, err)
	require.Equal(t, []string{"for x", "for y"}, out.Items)
}

// Mirrors test_multiple_interrupt_state_persistence / test_parallel_interrupts
// (Command(resume={id: value}) answering a subset): two parallel nodes
// interrupt; answering one by id finishes it and leaves the other pending;
// the other is then answered alone with a single value.
func TestResumeByIDAnswersOnlyThoseInterrupts(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("x", askNode(&cs, "x")).AddNode("y", askNode(&cs, "y")).
		AddEdge(graph.Start, "x").AddEdge(graph.Start, "y")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	ids := map[string]string{}
	for _, in := range ie.Interrupts {
		ids[in.Node] = in.ID
	}

	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.ResumeByID(map[string]any{ids["x"]: "X"}))
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "y", ie.Interrupts[0].Node)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"y"}, snap.Next)
	require.Len(t, snap.Interrupts, 1, "x was answered; only y's interrupt is pending")
	require.Equal(t, []string{"X"}, snap.Values.Items)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("Y"))
	require.NoError(t, err)
	require.Equal(t, []string{"X", "Y"}, out.Items)
	require.Equal(t, 2, cs.get("x"))
	require.Equal(t, 3, cs.get("y"))
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted: "agent" and
// "bad" run in one step; bad interrupts. agent is not cancelled, its
// writes are kept (in the output too); invoking again without an answer
// stops at the same interrupt with the same output; resuming with one
// runs only bad.
func TestResumeAfterInterruptDoesNotRerunFinishedSibling(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("agent", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("agent")
			return state.Writes(itemsField.Set([]string{"again"})), nil
		}).
		AddNode("bad", askNode(&cs, "bad")).
		AddConditionalEdges(graph.Start, routeTo("agent", "bad"), "agent", "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"world"})), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "bad", ie.Interrupts[0].Node)

	snap := latestState(t, c, "t")
	require.Equal(t, []string{"world", "again"}, snap.Values.Items)
	require.Equal(t, []string{"bad"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)

	// invoke(None) without an answer stops at the same interrupt, with the
	// same output, and agent does not run again.
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, []string{"world", "again"}, out.Items)
	require.Equal(t, 1, cs.get("agent"))

	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("bye"))
	require.NoError(t, err)
	require.Equal(t, []string{"world", "again", "bye"}, out.Items)
	require.Equal(t, 1, cs.get("agent"))
	require.Equal(t, 3, cs.get("bad"), "bad re-runs from its start each time")
	require.Empty(t, latestState(t, c, "t").Interrupts)
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted's first
// assertion ("writes from awhile are applied to last chunk"): the output of
// a run stopped by an interrupt includes the writes of the step's tasks
// that finished.
func TestInterruptOutputIncludesFinishedSiblings(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("agent", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"again"})), nil
		}).
		AddNode("bad", askNode(&cs, "bad")).
		AddConditionalEdges(graph.Start, routeTo("agent", "bad"), "agent", "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"world"})), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.Equal(t, latestState(t, c, "t").Values, out, "Invoke's state differs from State() for the same moment")
	require.Equal(t, []string{"world", "again"}, out.Items)
}

// A step with a finished task ("ok") and a task that calls Interrupt twice
// ("ask"), in every durability. Each stop returns the state with ok's
// writes (as State shows it), the stored checkpoint does not hold them (they
// are pending writes), and the final state has them exactly once: ok never
// runs again, though ask was interrupted twice (groupPending keeps ok's
// writes and drops nothing it needs).
func TestInterruptOutputAndResumeApplyFinishedWritesOnce(t *testing.T) {
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
				snap := latestState(t, c, "t")
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
			require.Empty(t, latestState(t, c, "t").Interrupts)
		})
	}
}

// The output of an Invoke stopped by an interrupt holds the finished
// sibling's writes once; a resume under each durability applies them once.
func TestInterruptOutputThenResumeAppliesSiblingOnceInEveryDurability(t *testing.T) {
	t.Parallel()
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
					return state.Writes(trailField.Set([]string{"a"}), totalField.Set(1)), nil
				}).
				AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
					v, err := graph.Interrupt[string](ctx, "q")
					if err != nil {
						return state.Update[counter]{}, err
					}
					return state.Writes(trailField.Set([]string{"ask:" + v})), nil
				}).
				AddNode("z", visit("z")).
				AddEdge(graph.Start, "a").AddEdge(graph.Start, "ask").AddJoin([]string{"a", "ask"}, "z")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			out, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
			require.ErrorIs(t, err, graph.ErrInterrupted)
			require.Equal(t, []string{"a"}, out.Trail)
			require.Equal(t, 1, out.Total)
			out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("yes"))
			require.NoError(t, err)
			require.ElementsMatch(t, []string{"a", "ask:yes", "z"}, out.Trail)
			require.Equal(t, 1, out.Total)
		})
	}
}

// groupPending with tasks interrupted twice beside a finished sibling:
// a Send task, and a subgraph whose two nodes interrupt in turn.
func TestTaskInterruptedTwiceBesideFinishedSiblingKeepsItsWrites(t *testing.T) {
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

// A resume or a replay needs the thread's checkpoints: on a graph without
// a checkpointer it is an error naming what is missing, with or without a
// thread, never a silent run from Start (issue #27).
func TestResumeOrReplayWithoutACheckpointerIsAnError(t *testing.T) {
	t.Parallel()
	var cs calls
	c := mustCompile(t, graph.New(schema).AddNode("a", cs.track("a")).AddEdge(graph.Start, "a"))
	for _, tc := range []struct {
		name string
		opts []graph.RunOption
	}{
		{"resume", []graph.RunOption{graph.Resume(true)}},
		{"resume on a thread", []graph.RunOption{graph.WithThread("t"), graph.Resume(true)}},
		{"resume by id on a thread", []graph.RunOption{graph.WithThread("t"), graph.ResumeByID(map[string]any{"x": 1})}},
		{"replay on a thread", []graph.RunOption{graph.WithThread("t"), graph.WithCheckpoint("cp")}},
	} {
		_, err := c.Invoke(t.Context(), zero, tc.opts...)
		require.ErrorContains(t, err, "needs a checkpointer", tc.name)
	}
	require.Zero(t, cs.get("a"), "nothing ran")
}
