package worker_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestCancelEndsAPendingRunAndLeavesAnEndedOne: Cancel of a pending run ends it at once and cancels
// its job; of a finished run does nothing and keeps how it ended.
func TestCancelEndsAPendingRunAndLeavesAnEndedOne(t *testing.T) {
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

// TestCancelOfARunWhoseWorkerDiedEndsIt: a run is running on a worker
// process that is killed (SIGKILL); the run is then cancelled. Cancel only
// marks a running run (cancel_requested) and asks River to cancel its job,
// counting on the worker to record the end. The worker is dead: River's
// rescuer later finds the job stuck and, since a cancel was attempted,
// moves it to "cancelled" without running it again, so nothing ever records
// the run's end: it stays "running" for good and Wait never returns.
func TestCancelOfARunWhoseWorkerDiedEndsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	victim := startWorker(t, e.schema, true)
	enq, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithPollInterval(100*time.Millisecond))
	require.NoError(t, err)
	id, err := enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "dead-cancel", Input: DocInput{Topic: "dead-cancel", Add: 1}})
	require.NoError(t, err)

	line, ok := <-victim.lines
	require.True(t, ok, "the victim ended before taking the run")
	require.Equal(t, "blocked dead-cancel", strings.TrimSpace(line))
	require.NoError(t, victim.cmd.Process.Signal(syscall.SIGKILL))
	for range victim.lines {
	}

	require.NoError(t, enq.Cancel(ctx, id))

	// A live worker finds the victim silent and deals with its job.
	leader := e.client(registry(e.pipeline(nil), "pipeline"))
	jobs := pgx.Identifier{e.schema, "river_job"}.Sanitize()

	// The rescuer has dealt with the job: it is final in River.
	r, err := leader.Run(ctx, id)
	require.NoError(t, err)
	var jobState string
	require.Eventually(t, func() bool {
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT state FROM `+jobs+` WHERE id = $1`, r.JobID).Scan(&jobState))
		return jobState == "cancelled" || jobState == "completed" || jobState == "discarded"
	}, time.Minute, 50*time.Millisecond)

	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got, err := leader.Wait(wctx, id)
	if err != nil {
		r, rerr := leader.Run(ctx, id)
		require.NoError(t, rerr)
		t.Fatalf("run %s never ended after the rescuer moved its job to %q: status %s (%v)", id, jobState, r.Status, err)
	}
	require.Equal(t, worker.StatusCancelled, got.Status, got.Error)
}
