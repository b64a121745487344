package worker

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// cancelReason is why a run with the Interrupt or Rollback strategy
// cancels the runs ahead of it; Rollback finds the runs it rolls back by
// it.
func (c *Client) cancelReason(a RunArgs) string {
	if a.Strategy == Rollback {
		return fmt.Sprintf("rolled back by run %s (multitask strategy rollback)", a.RunID)
	}
	return fmt.Sprintf("interrupted by run %s (multitask strategy interrupt)", a.RunID)
}

// rollback undoes, once they have stopped, the runs that run a (strategy
// Rollback) cancelled: it records in a's row the checkpoint the first of
// them started from (or "" when it started the thread), and deletes their
// records. It runs under the thread's lock, when a takes the thread; a
// retry finds nothing more to roll back and keeps the recorded fork.
func (c *Client) rollback(ctx context.Context, tx pgx.Tx, a RunArgs) error {
	rows, err := tx.Query(ctx, `SELECT run_id FROM `+c.t.runs+` WHERE thread_id = $1 AND status = 'cancelled' AND cancel_reason = $2`, a.Thread, c.cancelReason(a))
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(ids) == 0 {
		return err
	}
	var (
		oldest *checkpoint.Tuple
		found  bool
	)
	for _, id := range ids {
		for tup, err := range c.saver.List(ctx, checkpoint.Config{ThreadID: a.Thread}, checkpoint.ListOptions{Filter: map[string]any{"run_id": id}}) {
			if err != nil {
				return fmt.Errorf("find the checkpoints of run %s: %w", id, err)
			}
			if !found || tup.Config.CheckpointID < oldest.Config.CheckpointID {
				oldest, found = tup, true
			}
		}
	}
	if found {
		from := ""
		if oldest.Parent != nil {
			from = oldest.Parent.CheckpointID
		}
		if _, err := tx.Exec(ctx, `UPDATE `+c.t.runs+` SET rollback_from = $2 WHERE run_id = $1`, a.RunID, from); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `DELETE FROM `+c.t.runs+` WHERE run_id = ANY($1)`, ids)
	return err
}

// markFollowed records that a run is followed, until the next heartbeat
// says otherwise.
func (c *Client) markFollowed(runID string) {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	if c.live.followed == nil {
		c.live.followed = map[string]bool{}
	}
	c.live.followed[runID] = true
}
