package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// The thread lease. A run executes on the lease of its thread that the
// graph runtime takes in the saver (graph.WithLease) before it stores
// anything. An execution that dies keeps its lease until it expires; so
// the worker that takes a run over frees the lease the run's earlier
// execution left (when the saver is a checkpoint.LeaseBreaker): the
// rescue of a silent worker's runs does so for each of them, and a run
// executed again does so before it starts. An earlier execution that
// still lives finds its lease lost at its next renewal and stops before
// it stores more. A lease held by another writer (a direct Invoke, a
// process this queue does not know) is a busy thread: a Reject run fails,
// the other strategies wait until the lease expires or the run is woken.

// freeRunLease removes the live lease of thread if an execution of run
// runID holds it. It does nothing when the saver cannot break leases.
func (c *Client) freeRunLease(ctx context.Context, thread, runID string) error {
	l, ok := c.saver.(checkpoint.Leaser)
	if !ok {
		return nil
	}
	b, ok := c.saver.(checkpoint.LeaseBreaker)
	if !ok {
		return nil
	}
	info, err := l.LeaseOf(ctx, thread)
	if err != nil || info == nil || !graph.IsRunLeaseHolder(info.Holder, runID) {
		return err
	}
	if _, err := b.BreakLease(ctx, thread, info.Holder); err != nil {
		return fmt.Errorf("free the lease of thread %q left by run %s (holder %s): %w", thread, runID, info.Holder, err)
	}
	return nil
}

// busyWait is how long a run that met its thread's lease held by another
// writer sleeps: until the lease expires unless renewed, within
// [minBusyWait, the snooze interval]. The heartbeat may wake it earlier.
func (c *Client) busyWait(be *checkpoint.BusyError) time.Duration {
	d := time.Until(be.Expires)
	return min(max(d, minBusyWait), c.snooze)
}

// minBusyWait bounds from below the sleep of a run whose thread is busy,
// for a lease whose expiry (read on the database's clock) looks past.
const minBusyWait = 50 * time.Millisecond

// onBusy decides the end of an execution that met its thread's lease
// held by another holder: the status to record, the error code and what
// River does with the job. ok is false when runErr is not such an error.
func (c *Client) onBusy(ctx context.Context, a RunArgs, runErr error) (st Status, code errorCode, ret error, ok bool) {
	if !errors.Is(runErr, checkpoint.ErrBusy) {
		return "", "", nil, false
	}
	be := &checkpoint.BusyError{LeaseInfo: checkpoint.LeaseInfo{Thread: a.Thread, Expires: time.Now()}}
	errors.As(runErr, &be)
	switch {
	case graph.IsRunLeaseHolder(be.Holder, a.RunID):
		// An earlier execution of this run left it (it took the lease
		// after this one freed it): free it and go again at once.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := c.freeRunLease(fctx, a.Thread, a.RunID); err != nil {
			return StatusPending, "", river.JobSnooze(c.busyWait(be)), true
		}
		return StatusPending, "", river.JobSnooze(minBusyWait), true
	case a.Strategy == Reject:
		return StatusError, codeConflict, river.JobCancel(runErr), true
	default:
		// Enqueue waits its turn; Interrupt and Rollback cannot stop a
		// writer the queue does not know, so they wait for it too.
		return StatusPending, "", river.JobSnooze(c.busyWait(be)), true
	}
}
