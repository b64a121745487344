package worker_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

// TestRunEndFreesTheLeaseInOneStatement: a run's lease is deleted by the
// statement that records its end (one transaction), not by a statement of
// its own; a fresh reader then finds the run ended and the thread free.
func TestRunEndFreesTheLeaseInOneStatement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	seen := pgx.Identifier{e.schema, "seen_xacts"}.Sanitize()
	leases := pgx.Identifier{e.schema, "stategraph_leases"}.Sanitize()
	runs := pgx.Identifier{e.schema, "stategraph_runs"}.Sanitize()
	fn := pgx.Identifier{e.schema, "note_xact"}.Sanitize()
	for _, q := range []string{
		`CREATE TABLE ` + seen + ` (what text NOT NULL, xact bigint NOT NULL)`,
		`CREATE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
			INSERT INTO ` + seen + ` VALUES (TG_ARGV[0], txid_current()); RETURN NULL; END $$`,
		`CREATE TRIGGER lease_freed AFTER DELETE ON ` + leases + ` FOR EACH ROW EXECUTE FUNCTION ` + fn + `('lease')`,
		`CREATE TRIGGER run_ended AFTER UPDATE ON ` + runs + ` FOR EACH ROW WHEN (NEW.status = 'success') EXECUTE FUNCTION ` + fn + `('end')`,
	} {
		_, err := e.pool.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "fold", Input: DocInput{Topic: "fold"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, "run error: %v", r.Err())

	var lease, end []int64
	rows, err := e.pool.Query(ctx, `SELECT what, xact FROM `+seen)
	require.NoError(t, err)
	for rows.Next() {
		var (
			what string
			x    int64
		)
		require.NoError(t, rows.Scan(&what, &x))
		if what == "lease" {
			lease = append(lease, x)
		} else {
			end = append(end, x)
		}
	}
	require.NoError(t, rows.Err())
	require.Len(t, end, 1, "the run's end was recorded once")
	require.Equal(t, []int64{end[0]}, lease, "the lease was deleted once, in the transaction that recorded the end")

	fresh := openEnv(t, e.schema, false)
	info, err := fresh.saver.LeaseOf(ctx, "fold")
	require.NoError(t, err)
	require.Nil(t, info, "a fresh process finds the thread free")
	r, err = fresh.client(registry(fresh.pipeline(nil), "pipeline")).Run(ctx, id)
	require.NoError(t, err)
	require.Equal(t, worker.StatusSuccess, r.Status)
}
