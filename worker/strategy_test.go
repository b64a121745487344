package worker_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/worker"
)

// TestEnqueueStrategySkipsACancelledWaiter: runs waiting their turn
// (strategy Enqueue) behind a running one; one of them is cancelled while
// it waits, and a run of an unknown graph waits too. The others run in
// enqueue order, each on top of the ones before it; the cancelled one
// never runs.
func TestEnqueueStrategySkipsACancelledWaiter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("cw", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithWorkers(4))
	ctx := t.Context()

	first, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cw", Input: DocInput{Topic: "cw", Add: 1}})
	require.NoError(t, err)
	g.await(t)
	var waiting []string
	for i, graphName := range []string{"pipeline", "pipeline", "nope", "pipeline"} {
		id, err := c.Enqueue(ctx, worker.Request{Graph: graphName, Thread: "cw", Input: DocInput{Topic: "cw", Add: 10 * (i + 1)}, Strategy: worker.Enqueue})
		require.NoError(t, err)
		waiting = append(waiting, id)
	}
	require.NoError(t, c.Cancel(ctx, waiting[1]))
	cancelled, err := c.Run(ctx, waiting[1])
	require.NoError(t, err)
	require.Equal(t, worker.StatusCancelled, cancelled.Status, "a pending run is cancelled at once")
	close(g.release)

	r0 := wait(t, c, first)
	require.Equal(t, worker.StatusSuccess, r0.Status, r0.Error)
	a := wait(t, c, waiting[0])
	require.Equal(t, worker.StatusSuccess, a.Status, a.Error)
	require.Equal(t, 1+4+10+4, result(t, a).Total)
	unknown := wait(t, c, waiting[2])
	require.Equal(t, worker.StatusError, unknown.Status)
	require.ErrorContains(t, unknown.Err(), `"cw"`)
	require.Contains(t, unknown.Error, "graph not registered")
	last := wait(t, c, waiting[3])
	require.Equal(t, worker.StatusSuccess, last.Status, last.Error)
	require.Equal(t, 1+4+10+4+40+4, result(t, last).Total, "the cancelled run never applied its input")
	require.Len(t, result(t, last).Trail, 12)
	cancelled = wait(t, c, waiting[1])
	require.Equal(t, worker.StatusCancelled, cancelled.Status)
	require.Zero(t, cancelled.Attempts)
	require.ErrorIs(t, cancelled.Err(), worker.ErrCancelled)
	require.Equal(t, map[string]int{"a": 3, "b": 3, "c": 3, "d": 3}, e.nodeLog("cw"))
}

// TestEnqueueStrategyRunsConcurrentEnqueuesOneAtATime: many runs of one thread
// enqueued at once from several goroutines with strategy Enqueue all
// run, one at a time, each on top of all the runs that ran before it.
func TestEnqueueStrategyRunsConcurrentEnqueuesOneAtATime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"), worker.WithWorkers(8))
	ctx := t.Context()

	const n = 8
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ids[i], errs[i] = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "many", Input: DocInput{Topic: "many", Add: 100}, Strategy: worker.Enqueue})
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	seen := map[int]string{}
	for _, id := range ids {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
		require.Equal(t, 1, r.Attempts)
		d := result(t, r)
		k := len(d.Trail) / 4
		require.Equal(t, k*104, d.Total, "run %s saw whole runs only", id)
		require.NotContains(t, seen, k, "runs %s and %s saw the same thread", seen[k], id)
		seen[k] = id
	}
	require.Len(t, seen, n)
	require.Equal(t, map[string]int{"a": n, "b": n, "c": n, "d": n}, e.nodeLog("many"))
	runs, err := c.Runs(ctx, "many")
	require.NoError(t, err)
	require.Len(t, runs, n)
}

// TestInterruptStrategyLeavesAnInterruptedRunAlone: a run waiting for
// a human (StatusInterrupted) is over, so a run with strategy Interrupt
// does not cancel it; with an input it starts over from the entry on top of
// the state, with an answer it answers the pending interrupt.
func TestInterruptStrategyLeavesAnInterruptedRunAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.review(), "review"))
	ctx := t.Context()

	tests := []struct {
		name  string
		req   worker.Request
		check func(t *testing.T, r *worker.Run)
	}{
		{"answer", worker.Request{Resume: "yes"}, func(t *testing.T, r *worker.Run) {
			require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
			require.Equal(t, []string{"draft", "ask"}, result(t, r).Trail)
			require.Equal(t, "yes", result(t, r).Answer)
		}},
		{"new input", worker.Request{Input: DocInput{Topic: "again"}}, func(t *testing.T, r *worker.Run) {
			require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
			require.Equal(t, []string{"draft", "draft"}, result(t, r).Trail)
			require.Len(t, r.Interrupts, 1)
			require.Equal(t, "publish again?", r.Interrupts[0].Value)
		}},
		{"nothing", worker.Request{}, func(t *testing.T, r *worker.Run) {
			require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
			require.Equal(t, []string{"draft"}, result(t, r).Trail)
			require.Len(t, r.Interrupts, 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			thread := "hitl-" + tt.name
			first, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: thread, Input: DocInput{Topic: thread}})
			require.NoError(t, err)
			require.Equal(t, worker.StatusInterrupted, wait(t, c, first).Status)
			req := tt.req
			req.Graph, req.Thread, req.Strategy = "review", thread, worker.Interrupt
			id, err := c.Enqueue(ctx, req)
			require.NoError(t, err)
			tt.check(t, wait(t, c, id))
			r, err := c.Run(ctx, first)
			require.NoError(t, err)
			require.Equal(t, worker.StatusInterrupted, r.Status, "the waiting run is over, not cancelled")
		})
	}
}

// TestInterruptStrategyCancelsRunningAndQueued: a run with strategy
// Interrupt cancels both the running run and one waiting behind it; the
// running one keeps its checkpoints, the waiting one never applied its
// input.
func TestInterruptStrategyCancelsRunningAndQueued(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("iq", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithWorkers(4))
	ctx := t.Context()

	running, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "iq", Input: DocInput{Topic: "iq", Add: 1}})
	require.NoError(t, err)
	g.await(t)
	queued, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "iq", Input: DocInput{Topic: "iq", Add: 10}, Strategy: worker.Enqueue})
	require.NoError(t, err)
	boss, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "iq", Input: DocInput{Topic: "iq", Add: 100}, Strategy: worker.Interrupt})
	require.NoError(t, err)

	for _, id := range []string{running, queued} {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusCancelled, r.Status, r.Error)
		require.ErrorIs(t, r.Err(), worker.ErrCancelled)
		require.Contains(t, r.Error, boss)
	}
	close(g.release)
	r := wait(t, c, boss)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	require.Equal(t, 1+2+100+4, result(t, r).Total)
}

// TestRollbackStrategyUndoesTheRunsItCancels: a run with strategy
// Rollback cancels the running run of its thread and undoes its work: the
// rolled-back run's record is gone and the thread continues from the
// checkpoint before it, so its input and the nodes it finished count for
// nothing. On a thread the rolled-back run started, the thread starts
// afresh.
func TestRollbackStrategyUndoesTheRunsItCancels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		before bool // a run finished on the thread before the rolled-back one
		want   int
	}{
		{"after a finished run", true, 1 + 4 + 100 + 4},
		{"on a fresh thread", false, 100 + 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			thread := fmt.Sprintf("rb-%v", tt.before)
			g := newGate(thread, "c")
			c := e.client(registry(e.pipeline(g.hook), "pipeline"))
			ctx := t.Context()
			if tt.before { // a run of the graph outside the workers
				upd, err := docInput(DocInput{Topic: thread, Add: 1})
				require.NoError(t, err)
				_, err = e.pipeline(nil).Invoke(ctx, upd, graph.WithThread(thread))
				require.NoError(t, err)
			}
			victim, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: thread, Input: DocInput{Topic: thread, Add: 10}})
			require.NoError(t, err)
			g.await(t) // a and b have run and are saved; c waits
			id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: thread, Input: DocInput{Topic: thread, Add: 100}, Strategy: worker.Rollback})
			require.NoError(t, err)
			go func() {
				g.await(t) // the rollback run's own c
				close(g.release)
			}()
			r := wait(t, c, id)
			require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
			require.Equal(t, tt.want, result(t, r).Total, "the rolled-back run's input and nodes are undone")
			require.Len(t, result(t, r).Trail, len(result(t, r).Trail)/4*4)
			_, err = c.Run(ctx, victim)
			require.ErrorIs(t, err, worker.ErrNotFound, "the rolled-back run's record is deleted")
			rs, err := c.Runs(ctx, thread)
			require.NoError(t, err)
			for _, run := range rs {
				require.NotEqual(t, victim, run.ID)
			}
		})
	}
}
