package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// A node inside a subgraph calls Interrupt; the parent is resumed with
// Resume(v). The resume value must reach the subgraph's node.
func TestSubgraphInterruptResumes(t *testing.T) {
	t.Parallel()
	var askCalls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			askCalls.Add(1)
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(v)), nil
		}).
		AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddNode("pre", visit("pre")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err, "the resume value never reaches the subgraph's task")
	require.Equal(t, "ann", out.Last)
	require.EqualValues(t, 2, askCalls.Load())
}

// Same, answering by id (the id the parent's InterruptError reported).
func TestSubgraphInterruptResumesByID(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(v)), nil
		}).
		AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"),
		graph.ResumeByID(map[string]any{ie.Interrupts[0].ID: "bob"}))
	require.NoError(t, err)
	require.Equal(t, "bob", out.Last)
}

// A resumed node whose attempt fails transiently is retried; the retry
// re-runs the node from its start, so its Interrupt call must return the
// resume value again rather than raise a new interrupt.
func TestRetryAfterResumeReusesResumeValue(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n := calls.Add(1)
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			if n == 2 { // the first resumed attempt fails transiently
				return state.Update[counter]{}, errors.New("flaky")
			}
			return state.Writes(lastField.Set(v)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err, "the retry asked again instead of reusing the resume value")
	require.Equal(t, "ann", out.Last)
	require.EqualValues(t, 3, calls.Load())
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
// (the input checkpoint), or History/MermaidPath lose the chain.
func TestDurabilityExitFinalCheckpointHasParent(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(graph.DurabilityExit))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	hist := history(t, c, "t")
	require.Len(t, hist, 2)
	require.NotNil(t, hist[0].Parent, "the final checkpoint has no parent")
	require.Equal(t, hist[1].Config.CheckpointID, hist[0].Parent.CheckpointID)
}

// Under DurabilityExit, tasks after the first step get ids derived from
// an empty checkpoint id, so a replay reaches a subgraph with the same
// task id — and the same namespace — as the original run: the subgraph
// "resumes" its finished old run instead of running again.
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
	hist := history(t, c, "t")
	input := hist[len(hist)-1]
	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.WithCheckpoint(input.Config.CheckpointID))
	require.NoError(t, err)
	require.EqualValues(t, 2, preCalls.Load(), "the replay ran the step before the subgraph")
	require.EqualValues(t, 2, innerCalls.Load(), "the replay did not run the subgraph again")
	require.Equal(t, "x2", out.Last)
}

// A node that streams from several goroutines (parallel LLM calls, each
// with StreamingFunc) must not make Stream call the consumer concurrently.
// When the node is the step's only task its events go straight to yield
// from the emitting goroutine.
func TestInlineEmitFromGoroutinesIsSerialized(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					for j := range 50 {
						graph.Emit(ctx, fmt.Sprintf("%d/%d", i, j))
					}
				})
			}
			wg.Wait()
			return state.Writes(lastField.Set("done")), nil
		}).
		AddEdge(graph.Start, "fan")
	var got []any // written by the consumer only: a race here is the runtime's
	for ev, err := range mustCompile(t, g).Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Custom)) {
		require.NoError(t, err)
		got = append(got, ev.Custom)
	}
	require.Len(t, got, 200)
}

// The state cache must not share memory with values handed out: a run that
// failed after applying its step returned a state; a later run resumed
// from the cached checkpoint appends into the same backing array and
// changes the earlier result.
func TestCachedStateDoesNotAliasReturnedState(t *testing.T) {
	t.Parallel()
	var aCalls, routeCalls atomic.Int64
	g := graph.New(schema).
		AddNode("p1", visit("p1")).AddNode("p2", visit("p2")).AddNode("p3", visit("p3")).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(trailField.Set([]string{fmt.Sprintf("a%d", aCalls.Add(1))})), nil
		}).
		AddEdge(graph.Start, "p1").AddEdge("p1", "p2").AddEdge("p2", "p3").AddEdge("p3", "a").
		AddConditionalEdges("a", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if routeCalls.Add(1) == 1 {
				return "", errors.New("router down")
			}
			return graph.End, nil
		}), graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	first, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "router down")
	require.Equal(t, []string{"p1", "p2", "p3", "a1"}, first.Trail)
	second, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "p2", "p3", "a2"}, second.Trail)
	require.Equal(t, []string{"p1", "p2", "p3", "a1"}, first.Trail, "a state returned earlier changed")
}

// The snapshot State returns is the caller's: changing it must not change
// what the next State (or a resumed run) reads.
func TestStateSnapshotIsCallersOwn(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	snap.Values.Trail[0] = "edited by the caller"
	again, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, again.Values.Trail, "the cache returned the caller's edit, not the checkpoint")
}

// A Send's argument is the task's whole input. Resuming the step that
// holds the Send (after a sibling failed) must give the task the same
// input as the first attempt; the schedule encodes only the schema's
// fields, so an argument field outside the schema comes back zero.
type job struct {
	Item    string // per-Send input, not a channel of the graph
	Results []string
}

var (
	resultsField = state.Append("results", func(s *job) *[]string { return &s.Results })
	jobSchema    = state.NewSchema[job](resultsField)
)

func TestSendArgSurvivesResume(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	work := func(ctx context.Context, s job) (state.Update[job], error) {
		if s.Item == "b" && fail.Load() {
			return state.Update[job]{}, errors.New("b failed")
		}
		return state.Writes(resultsField.Set([]string{"did:" + s.Item})), nil
	}
	g := graph.New(jobSchema).
		AddNode("split", func(ctx context.Context, s job) (state.Update[job], error) {
			return state.Update[job]{}, nil
		}).
		AddNode("work", work).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s job) ([]graph.Send[job], error) {
			return []graph.Send[job]{graph.SendTo("work", job{Item: "a"}), graph.SendTo("work", job{Item: "b"})}, nil
		}), "work")
	c, err := g.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Update[job]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[job]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"did:a", "did:b"}, out.Results)
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
