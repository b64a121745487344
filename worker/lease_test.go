package worker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/worker"
)

// TestRunLeftLeaseOfItsOwnIsFreed: a lease on the thread that an earlier
// execution of the same run left (its process died) does not keep the
// run out until it expires: the worker frees it and the run goes on,
// even with the Reject strategy.
func TestRunLeftLeaseOfItsOwnIsFreed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	const runID = "01a00000-0000-7000-8000-00000000lease"
	_, err := e.saver.Lease(ctx, "own", "gone-host:1:"+runID, time.Hour)
	require.NoError(t, err)
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "own", RunID: runID, Input: DocInput{Topic: "own"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, "run error: %v", r.Err())
	info, err := e.saver.LeaseOf(ctx, "own")
	require.NoError(t, err)
	require.Nil(t, info, "the run released the lease it took over")
}

// TestRunOnAThreadLeasedElsewhere: a thread leased by a writer the queue
// does not know (a direct Invoke, another process) fails a Reject run
// with a conflict, and makes an Enqueue run wait until the lease is
// released.
func TestRunOnAThreadLeasedElsewhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	ls, err := e.saver.Lease(ctx, "elsewhere", "other-host:2:other-run", time.Hour)
	require.NoError(t, err)

	rejected, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "elsewhere", Strategy: worker.Reject, Input: DocInput{Topic: "elsewhere"}})
	require.NoError(t, err)
	r := wait(t, c, rejected)
	require.Equal(t, worker.StatusError, r.Status)
	require.ErrorIs(t, r.Err(), checkpoint.ErrConflict)
	require.ErrorContains(t, r.Err(), "other-host:2:other-run", "the error names the holder")

	queued, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "elsewhere", Strategy: worker.Enqueue, Input: DocInput{Topic: "elsewhere"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		r, err := c.Run(ctx, queued)
		require.NoError(t, err)
		require.False(t, r.Status.Done(), "the run waits while the thread is leased: %s %v", r.Status, r.Err())
		return r.Attempts >= 2
	}, 30*time.Second, 10*time.Millisecond, "the run met the lease and tried again")
	require.NoError(t, ls.Release(ctx))
	r = wait(t, c, queued)
	require.Equal(t, worker.StatusSuccess, r.Status, "run error: %v", r.Err())
}
