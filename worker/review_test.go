package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// Tests written while reviewing the worker package against the promises of
// docs/deployment.md ("What is guaranteed").

// asks compiles a graph whose two nodes, ask1 and ask2, run in parallel
// from Start and each ask a human; each appends "<node>:<answer>" to
// Trail. after, when set, runs in a node once it has its answer.
func (e *env) asks(after func(ctx context.Context, node string) error) *graph.Compiled[Doc] {
	e.tb.Helper()
	ask := func(name string) graph.NodeFunc[Doc] {
		return func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			ans, err := graph.Interrupt[string](ctx, name+"?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			if after != nil {
				if err := after(ctx, name); err != nil {
					return state.Update[Doc]{}, err
				}
			}
			return state.Writes(trailF.Set([]string{name + ":" + ans})), nil
		}
	}
	g := graph.New(docs).
		AddNode("ask1", ask("ask1")).AddNode("ask2", ask("ask2")).
		AddEdge(graph.Start, "ask1").AddEdge(graph.Start, "ask2")
	c, err := g.Compile(graph.WithCheckpointer(e.saver))
	require.NoError(e.tb, err)
	return c
}

// jobState reads the state of a River job.
func (e *env) jobState(ctx context.Context, id int64) string {
	e.tb.Helper()
	var st string
	require.NoError(e.tb, e.pool.QueryRow(ctx, `SELECT state FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()+` WHERE id = $1`, id).Scan(&st))
	return st
}

// answers answers every interrupt of an interrupted run with "<node>-yes".
func answers(r *worker.Run) map[string]any {
	m := map[string]any{}
	for _, in := range r.Interrupts {
		m[in.ID] = in.Node + "-yes"
	}
	return m
}

// TestReviewRetriedResumeRunKeepsItsAnswers: a run answers two pending
// interrupts (ResumeByID). ask1 finishes and its writes are saved as
// pending writes of the thread's interrupted checkpoint; ask2 is cut short
// by the run timeout (a transient failure), so River retries the run. No
// checkpoint of the run was saved, so the retry applies the answers again,
// but ask1's interrupt is no longer pending: the retry fails for good with
// graph.ErrNothingToResume instead of resuming (at-least-once execution,
// exactly-once effect per finished node).
func TestReviewRetriedResumeRunKeepsItsAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ask2 atomic.Int32
	app := e.asks(func(ctx context.Context, node string) error {
		if node == "ask2" && ask2.Add(1) == 1 {
			<-ctx.Done() // the first attempt runs out of time here
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(app, "asks"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "asks", Thread: "ra", Input: DocInput{Topic: "ra"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
	require.Len(t, r.Interrupts, 2)

	id2, err := c.Enqueue(ctx, worker.Request{Graph: "asks", Thread: "ra", ResumeByID: answers(r)})
	require.NoError(t, err)
	r2 := wait(t, c, id2)
	require.Equal(t, worker.StatusSuccess, r2.Status, r2.Error)
	require.Equal(t, 2, r2.Attempts, "the first attempt timed out, the second resumed")
	trail := result(t, r2).Trail
	slices.Sort(trail)
	require.Equal(t, []string{"ask1:ask1-yes", "ask2:ask2-yes"}, trail)
}

// TestReviewResumeEdgeCases: answering a thread that has no pending
// interrupt fails the run (and leaves the thread as it was); one value
// for two pending interrupts is ambiguous; an interrupt is answered once.
func TestReviewResumeEdgeCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := worker.NewRegistry()
	worker.Register(reg, "review", e.review(), worker.JSONInput(docInput))
	worker.Register(reg, "asks", e.asks(nil), worker.JSONInput(docInput))
	c := e.client(reg)
	ctx := t.Context()

	run := func(t *testing.T, req worker.Request) *worker.Run {
		t.Helper()
		id, err := c.Enqueue(ctx, req)
		require.NoError(t, err)
		return wait(t, c, id)
	}

	t.Run("finished thread", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "review", Thread: "done", Input: DocInput{Topic: "done"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		require.Equal(t, worker.StatusSuccess, run(t, worker.Request{Graph: "review", Thread: "done", Resume: "yes"}).Status)
		r = run(t, worker.Request{Graph: "review", Thread: "done", Resume: "again"})
		require.Equal(t, worker.StatusError, r.Status)
		require.ErrorContains(t, r.Err(), "nothing to resume")
		require.ErrorContains(t, r.Err(), `"done"`)
		require.Equal(t, 1, r.Attempts, "not retried")
	})

	t.Run("two pending, one value", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "asks", Thread: "two", Input: DocInput{Topic: "two"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		require.Len(t, r.Interrupts, 2)
		bad := run(t, worker.Request{Graph: "asks", Thread: "two", Resume: "yes"})
		require.Equal(t, worker.StatusError, bad.Status)
		require.ErrorContains(t, bad.Err(), "ambiguous")
		// The failed answer left the thread as it was.
		ok := run(t, worker.Request{Graph: "asks", Thread: "two", ResumeByID: answers(r)})
		require.Equal(t, worker.StatusSuccess, ok.Status, ok.Error)
		trail := result(t, ok).Trail
		slices.Sort(trail)
		require.Equal(t, []string{"ask1:ask1-yes", "ask2:ask2-yes"}, trail)
	})

	t.Run("answered twice", func(t *testing.T) {
		r := run(t, worker.Request{Graph: "review", Thread: "twice", Input: DocInput{Topic: "twice"}})
		require.Equal(t, worker.StatusInterrupted, r.Status)
		var ids []string
		for _, ans := range []string{"first", "second"} {
			id, err := c.Enqueue(ctx, worker.Request{Graph: "review", Thread: "twice", Resume: ans, Strategy: worker.Enqueue})
			require.NoError(t, err)
			ids = append(ids, id)
		}
		first, second := wait(t, c, ids[0]), wait(t, c, ids[1])
		require.Equal(t, worker.StatusSuccess, first.Status, first.Error)
		require.Equal(t, "first", result(t, first).Answer)
		require.Equal(t, worker.StatusError, second.Status)
		require.ErrorContains(t, second.Err(), "nothing to resume")
		snap, err := e.review().State(ctx, graph.WithThread("twice"))
		require.NoError(t, err)
		require.Equal(t, "first", snap.Values.Answer)
		require.Equal(t, []string{"draft", "ask"}, snap.Values.Trail)
	})
}

// TestReviewResumeOnAThreadThatNeverRan: a run that only answers an
// interrupt (Resume, no input) on a thread with no checkpoint has nothing
// to answer. It should fail like any answer without a pending interrupt;
// instead the answer is dropped silently and the graph starts from its
// entry with a zero input.
func TestReviewResumeOnAThreadThatNeverRan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.review(), "review"))
	id, err := c.Enqueue(t.Context(), worker.Request{Graph: "review", Thread: "empty", Resume: "yes"})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusError, r.Status, "ran: %s", r.Result)
	require.ErrorContains(t, r.Err(), "nothing to resume")
}

// TestReviewPermanentFailuresOfUserCode: a panic or an error of the
// user's code (a node, the InputFunc, the WithOutput function) fails the
// run for good at its first execution, with an error naming the thread
// and saying what happened; River does not retry it.
func TestReviewPermanentFailuresOfUserCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := worker.NewRegistry()
	worker.Register(reg, "node-panics", e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" {
			panic("node boom")
		}
		return nil
	}), worker.JSONInput(docInput))
	worker.Register(reg, "input-panics", e.pipeline(nil), func(json.RawMessage) (state.Update[Doc], error) {
		panic("input boom")
	})
	worker.Register(reg, "input-fails", e.pipeline(nil), func(json.RawMessage) (state.Update[Doc], error) {
		return state.Update[Doc]{}, errors.New("input refused")
	})
	worker.Register(reg, "output-panics", e.pipeline(nil), worker.JSONInput(docInput), worker.WithOutput(func(Doc) (any, error) {
		panic("output boom")
	}))
	worker.Register(reg, "output-fails", e.pipeline(nil), worker.JSONInput(docInput), worker.WithOutput(func(Doc) (any, error) {
		return nil, errors.New("output refused")
	}))
	// Three attempts at most, so that a retried failure ends quickly.
	c := e.client(reg, testRiver(func(c *river.Config) { c.MaxAttempts = 3 }))
	ctx := t.Context()

	tests := []struct {
		graph, want string
	}{
		{"node-panics", "node boom"},
		{"input-fails", "input refused"},
		{"output-fails", "output refused"},
		{"input-panics", "input boom"},
		{"output-panics", "output boom"},
	}
	for _, tt := range tests {
		t.Run(tt.graph, func(t *testing.T) {
			t.Parallel()
			thread := "t-" + tt.graph
			id, err := c.Enqueue(ctx, worker.Request{Graph: tt.graph, Thread: thread, Input: DocInput{Topic: thread}})
			require.NoError(t, err)
			r := wait(t, c, id)
			require.Equal(t, worker.StatusError, r.Status)
			require.ErrorContains(t, r.Err(), tt.want)
			require.ErrorContains(t, r.Err(), `"`+thread+`"`)
			require.Equal(t, 1, r.Attempts, "a permanent failure is not retried")
			require.Eventually(t, func() bool { return e.jobState(ctx, r.JobID) == "cancelled" }, 10*time.Second, 10*time.Millisecond)
		})
	}
}

// TestReviewExhaustedRetriesEndTheRun: a run whose every execution times
// out (a transient failure) is retried MaxAttempts times, then ends with
// StatusError; its error and its job's errors name the thread.
func TestReviewExhaustedRetriesEndTheRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(g, "pipeline"), worker.WithRunTimeout(time.Second), testRiver(func(c *river.Config) { c.MaxAttempts = 2 })) // step 0 must be saved within it on the first attempt, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "exhaust", Input: DocInput{Topic: "exhaust", Add: 3}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusError, r.Status)
	require.Equal(t, 2, r.Attempts)
	require.ErrorContains(t, r.Err(), `"exhaust"`)
	require.NotErrorIs(t, r.Err(), worker.ErrCancelled)
	require.Contains(t, r.Error, "deadline exceeded")
	require.Eventually(t, func() bool { return e.jobState(ctx, r.JobID) == "discarded" }, 10*time.Second, 10*time.Millisecond)
	job, err := c.River().JobGet(ctx, r.JobID)
	require.NoError(t, err)
	require.Len(t, job.Errors, 2)
	for _, je := range job.Errors {
		require.Contains(t, je.Error, `thread "exhaust"`)
	}
	// The input was applied once although the run executed twice.
	snap, err := g.State(ctx, graph.WithThread("exhaust"))
	require.NoError(t, err)
	require.Equal(t, 3+2, snap.Values.Total, "input once, a and b once")
	require.Equal(t, map[string]int{"a": 1, "b": 1}, e.nodeLog("exhaust"))
}

// TestReviewFollowAcrossARetry: a follower that starts before a run that
// needs two executions sees each of its checkpoints once, in order, and
// ends with the final status; the node whose step was cut short ran again,
// the others once.
func TestReviewFollowAcrossARetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var cRuns atomic.Int32
	g := e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" && cRuns.Add(1) == 1 {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(g, "pipeline"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "fr", Input: DocInput{Topic: "fr", Add: 2}})
	require.NoError(t, err)
	var (
		steps    []int
		ids      []string
		statuses []worker.Status
		final    *worker.Run
	)
	for ev, err := range c.Follow(ctx, id) {
		require.NoError(t, err)
		switch ev.Kind {
		case worker.EventCheckpoint:
			steps = append(steps, ev.Step)
			ids = append(ids, ev.Checkpoint.CheckpointID)
		case worker.EventStatus:
			statuses = append(statuses, ev.Status)
			final = ev.Run
		}
	}
	require.Equal(t, worker.StatusSuccess, statuses[len(statuses)-1], "%v", statuses)
	require.Equal(t, []int{-1, 0, 1, 2}, steps, "each checkpoint once, in order")
	require.True(t, slices.IsSorted(ids))
	require.Equal(t, 2, final.Attempts)
	require.Equal(t, reference(t, DocInput{Topic: "fr", Add: 2}, 1), result(t, final))
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog("fr"), "c logs only when it finishes")
	require.EqualValues(t, 2, cRuns.Load())
}

// TestReviewEnqueueStrategyWithACancelledWaiter: runs waiting their turn
// (strategy Enqueue) behind a running one; one of them is cancelled while
// it waits, and a run of an unknown graph waits too. The others run in
// enqueue order, each on top of the ones before it; the cancelled one
// never runs.
func TestReviewEnqueueStrategyWithACancelledWaiter(t *testing.T) {
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

// TestReviewConcurrentEnqueueStrategyRuns: many runs of one thread
// enqueued at once from several goroutines with strategy Enqueue all
// run, one at a time, each on top of all the runs that ran before it.
func TestReviewConcurrentEnqueueStrategyRuns(t *testing.T) {
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

// TestReviewRunsListsRunsInTheOrderTheyRun: Runs says it returns a
// thread's runs oldest first, and strategy Enqueue runs them in the order
// they were enqueued. A run enqueued (EnqueueTx) in a transaction that
// began before another run was enqueued is listed before it, though it was
// enqueued after it and ran after it: Runs orders by created_at, the
// transaction's start time, while the runs are taken in seq order.
func TestReviewRunsListsRunsInTheOrderTheyRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	tx, err := e.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	_, err = tx.Exec(ctx, "SELECT 1")
	require.NoError(t, err)
	early, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "order", Input: DocInput{Topic: "order"}, Strategy: worker.Enqueue})
	require.NoError(t, err)
	late, err := c.EnqueueTx(ctx, tx, worker.Request{Graph: "pipeline", Thread: "order", Input: DocInput{Topic: "order"}, Strategy: worker.Enqueue})
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))

	byTurn := map[int]string{}
	for _, id := range []string{early, late} {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
		byTurn[len(result(t, r).Trail)/4] = id
	}
	require.Equal(t, map[int]string{1: early, 2: late}, byTurn, "they ran in enqueue order")
	runs, err := c.Runs(ctx, "order")
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, []string{early, late}, []string{runs[0].ID, runs[1].ID}, "Runs lists them in the order they ran")
}

// TestReviewInterruptStrategyAgainstAHumanInTheLoopWait: a run waiting for
// a human (StatusInterrupted) is over, so a run with strategy Interrupt
// does not cancel it; with an input it starts over from the entry on top of
// the state, with an answer it answers the pending interrupt.
func TestReviewInterruptStrategyAgainstAHumanInTheLoopWait(t *testing.T) {
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

// TestReviewInterruptStrategyCancelsRunningAndQueued: a run with strategy
// Interrupt cancels both the running run and one waiting behind it; the
// running one keeps its checkpoints, the waiting one never applied its
// input.
func TestReviewInterruptStrategyCancelsRunningAndQueued(t *testing.T) {
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

// TestReviewCancel: Cancel of a pending run ends it at once and cancels
// its job; of a finished run does nothing and keeps how it ended.
func TestReviewCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	idle := e.client(nil, worker.WithQueue("idle")) // nobody works this queue
	ctx := t.Context()

	done, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cf", Input: DocInput{Topic: "cf"}})
	require.NoError(t, err)
	require.Equal(t, worker.StatusSuccess, wait(t, c, done).Status)
	require.NoError(t, c.Cancel(ctx, done))
	r, err := c.Run(ctx, done)
	require.NoError(t, err)
	require.Equal(t, worker.StatusSuccess, r.Status, "cancelling a finished run changes nothing")
	require.NoError(t, r.Err())

	pending, err := idle.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cp", Input: DocInput{Topic: "cp"}})
	require.NoError(t, err)
	require.NoError(t, idle.Cancel(ctx, pending))
	r = wait(t, idle, pending)
	require.Equal(t, worker.StatusCancelled, r.Status)
	require.ErrorIs(t, r.Err(), worker.ErrCancelled)
	require.Equal(t, "cancelled", e.jobState(ctx, r.JobID))
	require.NoError(t, idle.Cancel(ctx, pending), "twice is fine")
	// The thread is free again.
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "cp", Input: DocInput{Topic: "cp"}})
	require.NoError(t, err)
	require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
}

// TestReviewWaitAndFollowEdgeCases: Wait on a finished run returns it at
// once, as often as asked; Follow and Wait of an unknown run end with
// ErrNotFound.
func TestReviewWaitAndFollowEdgeCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "w", Input: DocInput{Topic: "w"}})
	require.NoError(t, err)
	r1 := wait(t, c, id)
	r2 := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r2.Status)
	require.Equal(t, r1.Result, r2.Result)
	require.Equal(t, r1.UpdatedAt, r2.UpdatedAt)

	n := 0
	for _, err := range c.Follow(ctx, "no-such-run") {
		n++
		require.ErrorIs(t, err, worker.ErrNotFound)
	}
	require.Equal(t, 1, n, "one error, then the end")
	_, err = c.Wait(ctx, "no-such-run")
	require.ErrorIs(t, err, worker.ErrNotFound)

	// A cancelled context: Follow ends with its error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	var last error
	for _, err := range c.Follow(cctx, id) {
		last = err
	}
	require.ErrorIs(t, last, context.Canceled)
}

// listeners counts the goroutines of Follow's LISTEN loop.
func listeners() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return strings.Count(string(buf), "worker.(*Client).listen.func")
}

// TestReviewFollowLeavesNoGoroutine: a Follow of a run that never ends,
// stopped by its context or by the caller, leaves no goroutine behind and
// closes its LISTEN connection. Not parallel: it counts goroutines.
func TestReviewFollowLeavesNoGoroutine(t *testing.T) {
	e := newEnv(t)
	app := "stategraph-review-" + e.schema
	pool := newPool(t, func(c *pgxpool.Config) { c.ConnConfig.RuntimeParams["application_name"] = app })
	// An insert-only client on a queue nobody works: the run stays pending.
	c, err := worker.New(pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithQueue("idle"), worker.WithPollInterval(50*time.Millisecond))
	require.NoError(t, err)
	ctx := t.Context()
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "leak", Input: DocInput{Topic: "leak"}})
	require.NoError(t, err)
	before := listeners()

	// Stopped by its context while it waits.
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	var during atomic.Int32
	go func() {
		var last error
		for ev, err := range c.Follow(fctx, id) {
			if err == nil && ev.Kind == worker.EventStatus {
				during.Store(int32(listeners()))
				cancel() // the follower is now waiting
			}
			last = err
		}
		done <- last
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("Follow did not end with its context")
	}
	require.EqualValues(t, before+1, during.Load(), "a Follow in progress listens")
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	// Stopped by the caller.
	for range c.Follow(ctx, id) {
		break
	}
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	// An unknown run.
	for range c.Follow(ctx, "nope") {
	}
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app).Scan(&n))
		return n == 0
	}, 10*time.Second, 20*time.Millisecond, "the LISTEN connections are closed")
}

// TestReviewJobWithoutARunRecord: a RunArgs job inserted straight into
// River (no row in stategraph_runs) is refused: its job is cancelled with
// an error that says why, and the graph never runs.
func TestReviewJobWithoutARunRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	input, err := json.Marshal(DocInput{Topic: "orphan"})
	require.NoError(t, err)
	res, err := c.River().Insert(ctx, worker.RunArgs{Graph: "pipeline", Thread: "orphan", RunID: "orphan-run", Input: input, Strategy: worker.Reject}, &river.InsertOpts{Queue: worker.DefaultQueue})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.jobState(ctx, res.Job.ID) == "cancelled" }, 10*time.Second, 10*time.Millisecond)
	job, err := c.River().JobGet(ctx, res.Job.ID)
	require.NoError(t, err)
	require.NotEmpty(t, job.Errors)
	require.Contains(t, job.Errors[len(job.Errors)-1].Error, "no record")
	require.Empty(t, e.nodeLog("orphan"))
	_, err = c.Run(ctx, "orphan-run")
	require.ErrorIs(t, err, worker.ErrNotFound)
}

// TestReviewPruneRunsInBatches: PruneRuns deletes ended runs older than
// the cutoff across several batches, and never an active one however old.
func TestReviewPruneRunsInBatches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(nil)
	ctx := t.Context()
	runs := pgx.Identifier{e.schema, "stategraph_runs"}.Sanitize()
	_, err := e.pool.Exec(ctx, `INSERT INTO `+runs+` (run_id, thread_id, graph, status, strategy, updated_at)
SELECT 'old-' || i, 'th-' || (i % 7), 'g', (ARRAY['success', 'error', 'interrupted', 'cancelled'])[1 + i % 4], 'reject', now() - interval '2 days'
FROM generate_series(1, 2500) i`)
	require.NoError(t, err)
	_, err = e.pool.Exec(ctx, `INSERT INTO `+runs+` (run_id, thread_id, graph, status, strategy, updated_at) VALUES
	('active-pending', 'a', 'g', 'pending', 'enqueue', now() - interval '2 days'),
	('active-running', 'b', 'g', 'running', 'reject', now() - interval '2 days'),
	('recent', 'c', 'g', 'success', 'reject', now())`)
	require.NoError(t, err)

	n, err := c.PruneRuns(ctx, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.Equal(t, 2500, n)
	var left []string
	rows, err := e.pool.Query(ctx, `SELECT run_id FROM `+runs+` ORDER BY run_id`)
	require.NoError(t, err)
	left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"active-pending", "active-running", "recent"}, left)

	n, err = c.PruneRuns(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the ended run, even with a cutoff in the future")
}

// TestReviewLargeInput: a run with a large input (far above NOTIFY's 8000
// byte payload limit) runs; note that the input travels in the River job's
// args, so it is stored (and kept) in river_job as well as in the thread.
func TestReviewLargeInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()
	topic := strings.Repeat("x", 64<<10)
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "big", Input: DocInput{Topic: topic, Add: 1}, Metadata: map[string]any{"api_key": "s3cr3t"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	require.Equal(t, topic, result(t, r).Topic)

	job, err := c.River().JobGet(ctx, r.JobID)
	require.NoError(t, err)
	var args worker.RunArgs
	require.NoError(t, json.Unmarshal(job.EncodedArgs, &args))
	require.Equal(t, id, args.RunID)
	// Documents the current design (see the review notes): the job args
	// hold the whole input and the metadata.
	require.Greater(t, len(job.EncodedArgs), len(topic))
	require.Equal(t, "s3cr3t", args.Metadata["api_key"])
}

// TestReviewDuplicateRunID: a RunID that names an existing run is refused,
// and nothing of the refused enqueue is left (no second River job).
func TestReviewDuplicateRunID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(nil, worker.WithQueue("idle"))
	ctx := t.Context()
	_, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "d1", RunID: "dup", Strategy: worker.Enqueue})
	require.NoError(t, err)
	_, err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "d2", RunID: "dup", Strategy: worker.Enqueue})
	require.Error(t, err)
	var jobs int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()).Scan(&jobs))
	require.Equal(t, 1, jobs)
	r, err := c.Run(ctx, "dup")
	require.NoError(t, err)
	require.Equal(t, "d1", r.Thread)
}

// TestRetriedPositionalAnswerIsNotGivenToTheNextInterrupt: a run answers
// the one pending interrupt with a positional value. Its node takes the
// answer and asks a second question (saved), while a sibling of the same
// step runs out of time, so River retries the run. The retry must not
// answer the second question with the first answer: the answer was pinned
// to the interrupt it answered, which is no longer pending.
func TestRetriedPositionalAnswerIsNotGivenToTheNextInterrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var slowCalls atomic.Int32
	g := graph.New(docs).
		AddNode("ask", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			first, err := graph.Interrupt[string](ctx, "first?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			second, err := graph.Interrupt[string](ctx, "second?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			return state.Writes(trailF.Set([]string{"ask:" + first + "," + second})), nil
		}).
		AddNode("slow", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			switch slowCalls.Add(1) {
			case 1:
				return state.Update[Doc]{}, errors.New("down") // ends the first run
			case 2:
				<-ctx.Done() // the resume run's first attempt runs out of time
				return state.Update[Doc]{}, ctx.Err()
			}
			return state.Writes(trailF.Set([]string{"slow"})), nil
		}).
		AddEdge(graph.Start, "ask").AddEdge(graph.Start, "slow")
	app, err := g.Compile(graph.WithCheckpointer(e.saver))
	require.NoError(t, err)
	c := e.client(registry(app, "two-questions"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Input: DocInput{Topic: "tq"}})
	require.NoError(t, err)
	require.Equal(t, worker.StatusError, wait(t, c, id).Status)

	id, err = c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Resume: "A"})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusInterrupted, r.Status, r.Error)
	require.Equal(t, 2, r.Attempts)
	require.Len(t, r.Interrupts, 1)
	require.Equal(t, "second?", r.Interrupts[0].Value, "the retry did not answer the second question with A")

	id, err = c.Enqueue(ctx, worker.Request{Graph: "two-questions", Thread: "tq", Resume: "B"})
	require.NoError(t, err)
	r = wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	trail := result(t, r).Trail
	slices.Sort(trail)
	require.Equal(t, []string{"ask:A,B", "slow"}, trail)
}
