package graph_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
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

// A consumer that leaves Stream while a subgraph node runs stops the run,
// like it stops a plain node: the subgraph task must be pending, not
// recorded as failed.
func TestReview4SubgraphStoppedByLeavingStreamIsNotFailed(t *testing.T) {
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

// A run stopped by the caller's deadline (a worker's job timeout, a
// request's deadline) is stopped by the run's context just as Ctrl-C is:
// the task stopped with it is pending, not failed.
func TestReview4TaskStoppedByCallersDeadlineIsNotFailed(t *testing.T) {
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

// WithDestinations' documentation allows a Goto to "a target of the node's
// edges": a conditional edge's declared targets are such targets.
func TestReview4GotoToAConditionalEdgeTargetIsAllowed(t *testing.T) {
	t.Parallel()
	router := func(ctx context.Context, s counter) (graph.Route[counter], error) {
		return graph.Route[counter]{To: []string{graph.End}}, nil
	}
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Goto: []string{"b"}}, nil
		}, graph.WithDestinations("c")).
		AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", router, "b", graph.End)
	c := mustCompile(t, g)
	out, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, out.Trail)
}

// The output of an Invoke stopped by an interrupt holds the finished
// sibling's writes once; a resume under each durability applies them once.
func TestReview4InterruptOutputThenResumeAppliesSiblingOnce(t *testing.T) {
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
