package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/retention"
)

var _ retention.Expirer = (*Saver)(nil)

// staleLocked, when set (by tests), runs in DeleteStaleThreads once the
// head rows are locked, before the check: a test holds the transaction
// there to race a writer against it.
var staleLocked atomic.Pointer[func(ids []string)]

// StaleThreads implements retention.Expirer. The primary key (thread_id,
// ns, id) serves the range and the grouping.
func (s *Saver) StaleThreads(ctx context.Context, cutoff time.Time, after string, limit int) ([]retention.Thread, error) {
	rows, err := s.pool.Query(ctx, `SELECT thread_id, max(created_at) FROM `+s.t.checkpoints+`
WHERE thread_id > $1 GROUP BY thread_id HAVING max(created_at) < $2 ORDER BY thread_id LIMIT $3`, after, cutoff, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: list threads older than %s: %w", cutoff.Format(time.RFC3339), err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (retention.Thread, error) {
		var t retention.Thread
		err := r.Scan(&t.ID, &t.Updated)
		t.Updated = t.Updated.UTC()
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list threads older than %s: %w", cutoff.Format(time.RFC3339), err)
	}
	return out, nil
}

// DeleteStaleThreads implements retention.Expirer in one transaction. It
// first locks the head rows of the threads (in id order, as every sweeper
// does, so two never deadlock), which every Put's compare-and-set
// updates: a Put that committed before is seen by the check and keeps its
// thread; one that comes after waits, then finds the head gone and fails
// with checkpoint.ErrConflict rather than writing into a deleted thread.
func (s *Saver) DeleteStaleThreads(ctx context.Context, cutoff time.Time, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var deleted []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM `+s.t.heads+` WHERE thread_id = ANY($1) ORDER BY thread_id, ns FOR UPDATE`, ids); err != nil {
			return err
		}
		if hook := staleLocked.Load(); hook != nil {
			(*hook)(ids)
		}
		rows, err := tx.Query(ctx, `SELECT thread_id FROM `+s.t.checkpoints+` WHERE thread_id = ANY($1)
GROUP BY thread_id HAVING max(created_at) < $2 ORDER BY thread_id`, ids, cutoff)
		if err != nil {
			return err
		}
		if deleted, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, id := range deleted {
			for _, q := range s.q.deleteAll { // what DeleteThread runs
				batch.Queue(q, id)
			}
		}
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: delete threads %q..%q older than %s: %w", ids[0], ids[len(ids)-1], cutoff.Format(time.RFC3339), err)
	}
	return deleted, nil
}
