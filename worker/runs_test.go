package worker_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestRunsListsRunsInTheOrderTheyRun: Runs says it returns a
// thread's runs oldest first, and strategy Enqueue runs them in the order
// they were enqueued. A run enqueued (EnqueueTx) in a transaction that
// began before another run was enqueued is listed before it, though it was
// enqueued after it and ran after it: Runs orders by created_at, the
// transaction's start time, while the runs are taken in seq order.
func TestRunsListsRunsInTheOrderTheyRun(t *testing.T) {
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

// TestPruneRunsInBatchesSparesActiveRuns: PruneRuns deletes ended runs older than
// the cutoff across several batches, and never an active one however old.
func TestPruneRunsInBatchesSparesActiveRuns(t *testing.T) {
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

// TestRunsClosesAnOrphanedRun: Runs, like Run, ends an active run whose
// River job is gone without having finished it, instead of listing it as
// pending for ever.
func TestRunsClosesAnOrphanedRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(nil) // enqueues only: nothing works the run
	ctx := t.Context()
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "orphan", Input: DocInput{Topic: "orphan"}})
	require.NoError(t, err)
	r, err := c.Run(ctx, id)
	require.NoError(t, err)
	_, err = e.pool.Exec(ctx, `DELETE FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()+` WHERE id = $1`, r.JobID)
	require.NoError(t, err)

	runs, err := c.Runs(ctx, "orphan")
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Equal(t, worker.StatusError, runs[0].Status)
	require.Contains(t, runs[0].Error, "its River job ended (deleted) without finishing the run")
}
