package graph_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// requireNoTaskErrors asserts that the thread's pending tasks carry no
// recorded error.
func requireNoTaskErrors(t *testing.T, c *graph.Compiled[counter], thread string) *graph.Snapshot[counter] {
	t.Helper()
	snap, err := c.State(t.Context(), graph.WithThread(thread))
	require.NoError(t, err)
	for _, task := range snap.Tasks {
		require.Empty(t, task.Error, "task %s was recorded as failed", task.Node)
	}
	return snap
}

// deadlineCtx is a context whose deadline passes when done is closed.
type deadlineCtx struct {
	context.Context
	done chan struct{}
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestCancellationStopsPromptly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			close(started)
			<-ctx.Done()
			return state.Update[counter]{}, ctx.Err()
		}).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			<-ctx.Done()
			return state.Update[counter]{}, ctx.Err()
		}).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	c := mustCompile(t, g)
	go func() {
		<-started
		cancel()
	}()
	_, err := c.Invoke(ctx, state.Update[counter]{})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "run stopped at step 1")
}

func TestNodeTimeoutFailsTheNode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
		<-ctx.Done()
		return state.Update[counter]{}, ctx.Err()
	}, graph.WithTimeout(time.Millisecond)).AddEdge(graph.Start, "slow")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrNodeTimeout)
	require.ErrorContains(t, err, `node "slow"`)
}

// A task stopped by the run's cancellation is not a failed task: nothing is
// recorded for it, the thread shows it pending (no error), and a resume
// runs it while its finished sibling stays done.
func TestCancelledTaskIsPendingNotFailed(t *testing.T) {
	t.Parallel()
	var slowCalls atomic.Int64
	g := graph.New(schema).
		AddNode("done", visit("done")).
		AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if slowCalls.Add(1) == 1 {
				<-ctx.Done()
				return state.Update[counter]{}, fmt.Errorf("call the service: %w", ctx.Err())
			}
			return visit("slow")(ctx, s)
		}).
		AddEdge(graph.Start, "done").AddEdge(graph.Start, "slow")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for ev, err := range c.Stream(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			break
		}
		if ev.Node == "done" && ev.Task.Result {
			cancel() // Ctrl-C, once done's writes are saved
		}
	}
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"slow"}, snap.Next)
	for _, task := range snap.Tasks {
		require.Empty(t, task.Error, "task %s", task.Node)
	}

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"done", "slow"}, out.Trail)
	require.EqualValues(t, 2, slowCalls.Load())
}

// A run stopped by the caller's deadline (a worker's job timeout, a
// request's deadline) is stopped by the run's context just as Ctrl-C is:
// the task stopped with it is pending, not failed.
func TestTaskStoppedByCallersDeadlineIsNotFailed(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	g := graph.New(schema).
		AddNode("done", visit("done")).
		AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
			close(started)
			<-ctx.Done()
			return state.Update[counter]{}, ctx.Err()
		}).
		AddEdge(graph.Start, "done").AddEdge(graph.Start, "slow")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	// The deadline passes once slow runs (a fixed timeout could pass
	// before it starts on a loaded machine: slow would never run).
	ctx := &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
	go func() {
		select {
		case <-started:
		case <-t.Context().Done():
		}
		close(ctx.done)
	}()
	_, err := c.Invoke(ctx, state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	snap := requireNoTaskErrors(t, c, "t")
	require.Equal(t, []string{"slow"}, snap.Next)
}

// A consumer that leaves Stream while a subgraph node runs stops the run,
// like it stops a plain node: the subgraph task must be pending, not
// recorded as failed.
func TestSubgraphStoppedByLeavingStreamIsNotFailed(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if calls.Add(1) == 1 {
				graph.Emit(ctx, "started")
				<-ctx.Done()
				return state.Update[counter]{}, ctx.Err()
			}
			return visit("work")(ctx, s)
		}).
		AddEdge(graph.Start, "work"))
	c := mustCompile(t, graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub"),
		graph.WithCheckpointer(memory.New()))
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"),
		graph.StreamModes(graph.Custom), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Mode == graph.Custom {
			break // the consumer leaves while the subgraph's node runs
		}
	}
	snap := requireNoTaskErrors(t, c, "t")
	require.Equal(t, []string{"sub"}, snap.Next)

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"work"}, out.Trail)
}

// Mirrors test_cancel_graph_astream (test_pregel_async.py), with its
// expected values: alittlewhile and aparallelwhile run from START,
// alittlewhile goes on to awhile. The consumer leaves the stream at its
// first chunk, alittlewhile's update; aparallelwhile, if it started, is
// cancelled, awhile never starts, and the thread is the loop checkpoint of
// step 0 with alittlewhile's write applied (1 + 2), next
// ("aparallelwhile",).
func TestLeavingTheStreamKeepsTheFinishedTaskAndCancelsTheOther(t *testing.T) {
	t.Parallel()
	var started, cancelled, awhile atomic.Bool
	g := graph.New(schema).
		AddNode("alittlewhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(totalField.Set(2)), nil
		}).
		AddNode("aparallelwhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			started.Store(true)
			<-ctx.Done()
			cancelled.Store(true)
			return zero, ctx.Err()
		}).
		AddNode("awhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			awhile.Store(true)
			return zero, nil
		}).
		AddEdge(graph.Start, "alittlewhile").AddEdge(graph.Start, "aparallelwhile").AddEdge("alittlewhile", "awhile")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	got := false
	for ev, err := range c.Stream(t.Context(), state.Writes(totalField.Set(1)), graph.WithThread("t"), graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		require.Equal(t, "alittlewhile", ev.Node)
		require.Equal(t, 2, ev.Update.Writes[0].Value())
		got = true
		break
	}
	require.True(t, got)
	require.Equal(t, started.Load(), cancelled.Load(), "a started aparallelwhile was cancelled")
	require.False(t, awhile.Load(), "awhile never starts")
	snap := requireNoTaskErrors(t, c, "t")
	require.Equal(t, 3, snap.Values.Total)
	require.Equal(t, []string{"aparallelwhile"}, snap.Next)
	require.Equal(t, 0, snap.Metadata.Step)
	require.Equal(t, "loop", string(snap.Metadata.Source))
}
