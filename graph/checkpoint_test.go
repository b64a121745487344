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

func history(t *testing.T, c *graph.Compiled[counter], thread string) []*graph.Snapshot[counter] {
	t.Helper()
	var out []*graph.Snapshot[counter]
	for s, err := range c.History(t.Context(), graph.WithThread(thread)) {
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

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

func TestRecursionLimitLeavesThreadResumable(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "inc").
		AddConditionalEdges("inc", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 10 {
				return "inc", nil
			}
			return graph.End, nil
		}), "inc", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.WithRecursionLimit(4))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	require.Equal(t, 4, out.N)
	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 10, out.N)
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

func TestInterruptBeforeAndAfter(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "b", ie.Interrupts[0].Node)
	require.Equal(t, "before", ie.Interrupts[0].When)
	require.Equal(t, []string{"a"}, out.Trail)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, "before", snap.Interrupts[0].When)
	require.Equal(t, ie.Interrupts[0].ID, snap.Interrupts[0].ID)

	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.InterruptAfter("b"))
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "after", ie.Interrupts[0].When)
	require.Equal(t, []string{"a", "b"}, out.Trail)

	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
}

func TestDynamicInterruptAndResume(t *testing.T) {
	t.Parallel()
	var reviewCalls atomic.Int64
	g := graph.New(schema).
		AddNode("draft", visit("draft")).
		AddNode("review", func(ctx context.Context, s counter) (state.Update[counter], error) {
			reviewCalls.Add(1)
			ok, err := graph.Interrupt[bool](ctx, map[string]any{"question": "publish?", "trail": s.Trail})
			if err != nil {
				return state.Update[counter]{}, err
			}
			note, err := graph.Interrupt[string](ctx, "why?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(fmt.Sprintf("%v:%s", ok, note))), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "review")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var interrupts []graph.Interruption
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Interrupts)) {
		require.NoError(t, err)
		interrupts = append(interrupts, ev.Interrupts...)
	}
	require.Len(t, interrupts, 1)
	require.Equal(t, "review", interrupts[0].Node)
	require.Equal(t, map[string]any{"question": "publish?", "trail": []string{"draft"}}, interrupts[0].Value)

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, interrupts[0].ID, snap.Interrupts[0].ID)
	require.Equal(t, map[string]any{"question": "publish?", "trail": []any{"draft"}}, snap.Interrupts[0].Value)

	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume(true))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("looks good"))
	require.NoError(t, err)
	require.Equal(t, "true:looks good", out.Last)
	require.EqualValues(t, 3, reviewCalls.Load())

	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume(1))
	require.ErrorIs(t, err, graph.ErrNothingToResume)
	require.ErrorContains(t, err, "no pending interrupt")
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
	require.ErrorContains(t, err, "ResumeByID")
	ids := map[string]any{}
	for _, in := range ie.Interrupts {
		ids[in.ID] = "for " + in.Node
	}
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.ResumeByID(ids))
	require.NoError(t, err)
	require.Equal(t, []string{"for x", "for y"}, out.Items)
}

func TestReplayAndForkLeaveHistoryUntouched(t *testing.T) {
	t.Parallel()
	var bCalls atomic.Int64
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", counted(&bCalls, visit("b"))).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	before := history(t, c, "t")
	require.Len(t, before, 4)
	afterA := before[2] // step 0: a ran, b is next
	require.Equal(t, []string{"b"}, afterA.Next)

	// Replay from after a: b and c run again on a new branch.
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.WithCheckpoint(afterA.Config.CheckpointID))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.EqualValues(t, 2, bCalls.Load())
	after := history(t, c, "t")
	require.Len(t, after, 7)
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

func TestSendsAndJoinsSurviveResume(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	var workCalls atomic.Int64
	g := graph.New(schema).
		AddNode("split", visit("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			workCalls.Add(1)
			if s.Last == "b" && fail.Load() {
				return state.Update[counter]{}, errors.New("b failed")
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("sum", visit("sum")).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "a"}), graph.SendTo("work", counter{Last: "b"}), graph.SendTo("work", counter{Last: "c"})}, nil
		}), "work").
		AddEdge("work", "sum")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	require.EqualValues(t, 3, workCalls.Load())
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Items)
	require.EqualValues(t, 4, workCalls.Load())
	require.Equal(t, []string{"split", "sum"}, out.Trail)
}

func TestSubgraphCheckpointsInItsNamespaceAndResumes(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	var xCalls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", counted(&xCalls, visit("x"))).
		AddNode("y", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("y failed")
			}
			return state.Writes(trailField.Set([]string{"y"})), nil
		}).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	saver := memory.New()
	g := graph.New(schema).AddNode("pre", visit("pre")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "y failed")
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "x", "y"}, out.Trail)
	require.EqualValues(t, 1, xCalls.Load(), "the subgraph resumed from its own checkpoint")
}

func TestDurabilityExitStoresOnlyTheEnd(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	hist := history(t, c, "t")
	require.Len(t, hist, 2) // the input and the end
	require.Equal(t, out, hist[0].Values)
}

// A consumer that stops the stream right after a task's result does not
// lose that task's work: the step's checkpoint is still saved, and resuming
// does not run the node again.
func TestBreakAfterTaskResultKeepsItsWork(t *testing.T) {
	t.Parallel()
	var aCalls atomic.Int64
	g := graph.New(schema).AddNode("a", counted(&aCalls, visit("a"))).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Node == "a" && ev.Task.Result {
			break
		}
	}
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.EqualValues(t, 1, aCalls.Load())
}

// The context a node receives may outlive the node: an HTTP transport
// cancels a request's context from its own goroutine. Reusing it for the
// next step would race.
func TestNodeContextMayOutliveTheNode(t *testing.T) {
	t.Parallel()
	var kept []context.Context
	var mu sync.Mutex
	var wg sync.WaitGroup
	g := graph.New(schema).AddNode("loop", func(ctx context.Context, s counter) (state.Update[counter], error) {
		mu.Lock()
		kept = append(kept, ctx)
		mu.Unlock()
		wg.Go(func() { _ = ctx.Err(); _ = ctx.Value(struct{}{}) })
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "loop").
		AddConditionalEdges("loop", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 20 {
				return "loop", nil
			}
			return graph.End, nil
		}), "loop", graph.End)
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	wg.Wait()
	for i := 1; i < len(kept); i++ {
		require.NotSame(t, kept[i-1], kept[i])
	}
}

// The state cache answers exactly what decoding the checkpoint answers.
func TestCachedStateMatchesDecodedState(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	build := func() *graph.Compiled[counter] {
		return w3Graph(t, 300, saver)
	}
	warm, cold := build(), build()
	_, err := warm.Invoke(t.Context(), state.Writes(lastField.Set("x")), graph.WithThread("t"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)
	a, err := warm.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	b, err := cold.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, b.Values, a.Values)
	require.Len(t, a.Values.Items, 300)
	var n int
	for s, err := range cold.History(t.Context(), graph.WithThread("t"), graph.WithLimit(50)) {
		require.NoError(t, err)
		require.Len(t, s.Values.Items, 300-n/2)
		n++
	}
}

// History reuses the values it already decoded (the same version, or a
// prefix of a newer append field) instead of decoding every checkpoint.
// Every snapshot must still equal the checkpoint decoded on its own:
// across deltas, periodic snapshots, overwrites, forks and updates.
func TestHistoryValuesMatchEachCheckpoint(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	grow := graph.New(schema).
		AddNode("add", func(ctx context.Context, s counter) (state.Update[counter], error) {
			ws := []state.Write[counter]{itemsField.Set([]string{fmt.Sprint(len(s.Items))}), nField.Set(s.N + 1)}
			if s.N == 150 {
				ws[0] = itemsField.Overwrite([]string{"reset"})
			}
			return state.Writes(ws...), nil
		}).
		AddEdge(graph.Start, "add").
		AddConditionalEdges("add", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 300 {
				return "add", nil
			}
			return graph.End, nil
		}), "add", graph.End)
	warm := mustCompile(t, grow, graph.WithCheckpointer(saver))
	_, err := warm.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("h"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)
	// A fork from step 100 with an update, then a replay to the end.
	var at100 string
	for s, err := range warm.History(t.Context(), graph.WithThread("h")) {
		require.NoError(t, err)
		if s.Metadata.Step == 100 {
			at100 = s.Config.CheckpointID
		}
	}
	_, err = warm.UpdateState(t.Context(), state.Writes(itemsField.Set([]string{"edited"})), "", graph.WithThread("h"), graph.WithCheckpoint(at100))
	require.NoError(t, err)
	_, err = warm.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("h"), graph.WithRecursionLimit(1000))
	require.NoError(t, err)

	cold := mustCompile(t, grow, graph.WithCheckpointer(saver))
	n := 0
	for s, err := range warm.History(t.Context(), graph.WithThread("h")) {
		require.NoError(t, err)
		one, err := cold.State(t.Context(), graph.WithThread("h"), graph.WithCheckpoint(s.Config.CheckpointID))
		require.NoError(t, err)
		require.Equal(t, one.Values, s.Values, "checkpoint %s (step %d)", s.Config.CheckpointID, s.Metadata.Step)
		n++
	}
	require.Greater(t, n, 500)
}
