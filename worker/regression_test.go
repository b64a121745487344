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

	leader := e.rescuer(t, 1)
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
