package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// runColumns are the columns scanRun reads, in its order.
const runColumns = `run_id, thread_id, graph, status, strategy, coalesce(job_id, 0), attempt, result, interrupts, coalesce(error, ''), coalesce(error_code, ''), created_at, updated_at`

func scanRun(row pgx.Row) (*Run, error) {
	var (
		r                  Run
		result, interrupts []byte
	)
	if err := row.Scan(&r.ID, &r.Thread, &r.Graph, &r.Status, &r.Strategy, &r.JobID, &r.Attempts, &result, &interrupts, &r.Error, &r.code, &r.CreatedAt, &r.UpdatedAt); err != nil {
		return nil, err
	}
	if result != nil {
		r.Result = json.RawMessage(result)
	}
	if interrupts != nil {
		if err := json.Unmarshal(interrupts, &r.Interrupts); err != nil {
			return nil, fmt.Errorf("interrupts of run %s: %w", r.ID, err)
		}
	}
	return &r, nil
}

// Run returns the run with the given id; an unknown id is ErrNotFound.
func (c *Client) Run(ctx context.Context, runID string) (*Run, error) {
	r, err := scanRun(c.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM `+c.t.runs+` WHERE run_id = $1`, runID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, runID)
	}
	if err != nil {
		return nil, fmt.Errorf("worker: run %s: %w", runID, err)
	}
	if !r.Status.Done() {
		closed, err := c.closeIfOrphaned(ctx, runID)
		if err != nil {
			return nil, fmt.Errorf("worker: run %s: %w", runID, err)
		}
		if closed {
			return c.Run(ctx, runID)
		}
	}
	return r, nil
}

// Peek returns the run with the given id as stored, in one read: unlike
// Run, it does not close a run whose River job ended without finishing
// it, so it suits frequent polling (call Run now and then to settle
// such runs). An unknown id is ErrNotFound.
func (c *Client) Peek(ctx context.Context, runID string) (*Run, error) {
	r, err := scanRun(c.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM `+c.t.runs+` WHERE run_id = $1`, runID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, runID)
	}
	if err != nil {
		return nil, fmt.Errorf("worker: run %s: %w", runID, err)
	}
	return r, nil
}

// closeIfOrphaned ends an active run whose River job is over (or gone)
// without having recorded how the run ended — its worker died on the last
// attempt, or River's rescuer cancelled the job of a dead worker — so that
// Run, Wait and Follow do not report it active forever. It reports whether
// it closed the run.
func (c *Client) closeIfOrphaned(ctx context.Context, runID string) (bool, error) {
	closed := false
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		// The run's row first, then its job in a statement of its own:
		// a join would read the job as of before the wait for the row's
		// lock, and miss a job that a rescue gave the run meanwhile.
		var job *int64
		err := tx.QueryRow(ctx, `SELECT job_id FROM `+c.t.runs+` WHERE run_id = $1 AND status IN ('pending', 'running') FOR UPDATE`, runID).Scan(&job)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // ended meanwhile
		}
		if err != nil {
			return err
		}
		var js *string
		if job != nil {
			err := tx.QueryRow(ctx, `SELECT state FROM `+c.t.riverJob+` WHERE id = $1`, *job).Scan(&js)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		state := "deleted"
		if js != nil {
			state = *js
		}
		if state != "deleted" && state != "completed" && state != "cancelled" && state != "discarded" {
			return nil // the job is still going: its worker records the end
		}
		st, code := StatusError, codeFailed
		if state == "cancelled" {
			st, code = StatusCancelled, codeCancelled
		}
		closed = true
		return c.setStatus(ctx, tx, runID, st, fmt.Sprintf("its River job ended (%s) without finishing the run", state), code)
	})
	return closed, err
}

// Runs returns the runs of a thread in the order they were enqueued (the
// order the Enqueue strategy runs them in). Like Run, it closes an active
// run whose River job has ended without finishing it, and reports it
// closed.
func (c *Client) Runs(ctx context.Context, thread string) ([]*Run, error) {
	runs, err := c.runs(ctx, thread)
	if err != nil {
		return nil, err
	}
	active := false
	for _, r := range runs {
		active = active || !r.Status.Done()
	}
	if !active {
		return runs, nil
	}
	rows, err := c.pool.Query(ctx, `SELECT r.run_id FROM `+c.t.runs+` r LEFT JOIN `+c.t.riverJob+` j ON j.id = r.job_id
WHERE r.thread_id = $1 AND r.status IN ('pending', 'running') AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'discarded'))`, thread)
	if err != nil {
		return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
	}
	orphans, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
	}
	for i, r := range runs {
		if !slices.Contains(orphans, r.ID) {
			continue
		}
		closed, err := c.closeIfOrphaned(ctx, r.ID)
		if err != nil {
			return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
		}
		if closed {
			if runs[i], err = c.Run(ctx, r.ID); err != nil {
				return nil, err
			}
		}
	}
	return runs, nil
}

func (c *Client) runs(ctx context.Context, thread string) ([]*Run, error) {
	rows, err := c.pool.Query(ctx, `SELECT `+runColumns+` FROM `+c.t.runs+` WHERE thread_id = $1 ORDER BY seq`, thread)
	if err != nil {
		return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("worker: runs of thread %q: %w", thread, err)
	}
	return out, nil
}

// Wait follows the run until it is done and returns it as it ended.
func (c *Client) Wait(ctx context.Context, runID string) (*Run, error) {
	for ev, err := range c.Follow(ctx, runID) {
		if err != nil {
			return nil, err
		}
		if ev.Kind == EventStatus && ev.Status.Done() {
			return ev.Run, nil
		}
	}
	return nil, fmt.Errorf("worker: wait for run %s: %w", runID, ctx.Err())
}

// pruneBatch is how many runs PruneRuns deletes per statement, so that a
// large backlog never holds many row locks at once.
const pruneBatch = 1000

// PruneRuns deletes the runs that ended (success, error, interrupted or
// cancelled) and were last updated before before, and returns how many it
// deleted. Active runs are never deleted, however old. It deletes in
// batches, each its own transaction; a cancelled ctx stops it between
// batches with what it deleted so far. Checkpoints are not touched: delete
// or prune threads with the checkpointer (Saver.DeleteThread, Prune), and
// River cleans its own finished jobs.
func (c *Client) PruneRuns(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		tag, err := c.pool.Exec(ctx, `DELETE FROM `+c.t.runs+` WHERE run_id IN (
	SELECT run_id FROM `+c.t.runs+`
	WHERE status IN ('success', 'error', 'interrupted', 'cancelled') AND updated_at < $1
	LIMIT $2 FOR UPDATE SKIP LOCKED)`, before, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("worker: prune runs updated before %s: %w", before.Format(time.RFC3339), err)
		}
		total += int(tag.RowsAffected())
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
