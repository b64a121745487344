package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// DeleteThread removes every checkpoint, blob and pending write of the
// thread, in every namespace, in one transaction. Deleting a thread that
// does not exist is not an error.
func (s *Saver) DeleteThread(ctx context.Context, threadID string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM writes WHERE thread_id = ?`,
			`DELETE FROM blobs WHERE thread_id = ?`,
			`DELETE FROM checkpoints WHERE thread_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, threadID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return withCtx(ctx, fmt.Errorf("sqlite: delete thread %q: %w", threadID, err))
	}
	return nil
}

// CopyThread copies every checkpoint of src, in every namespace, with its
// blobs and pending writes, into dst, keeping the checkpoint ids. It fails
// with checkpoint.ErrConflict if dst has checkpoints (or is src), and with
// checkpoint.ErrNotFound if src has none. Copies run one at a time in a
// write transaction, so of two copies onto one dst the second conflicts.
func (s *Saver) CopyThread(ctx context.Context, src, dst string) error {
	if src == dst {
		return fmt.Errorf("sqlite: copy thread %q onto itself: %w", src, checkpoint.ErrConflict)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints WHERE thread_id = ?`, dst).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("sqlite: copy thread %q to %q: the destination has %d checkpoints: %w", src, dst, n, checkpoint.ErrConflict)
		}
		n, err := copyRows(ctx, tx, src, dst)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("sqlite: copy thread %q: %w", src, checkpoint.ErrNotFound)
		}
		return nil
	})
	if err != nil && !isOurs(err) {
		return withCtx(ctx, fmt.Errorf("sqlite: copy thread %q to %q: %w", src, dst, err))
	}
	return err
}

// Prune keeps the newest keep checkpoints of each namespace of the thread
// and deletes the others, with their pending writes and every blob that
// no kept checkpoint needs (a kept checkpoint needs the blobs its
// versions name and the whole delta chain behind them). keep 0 deletes
// every checkpoint of the thread; a negative keep is an error. Pruning an
// unknown thread is not an error. Prune hides no damage: a value a kept
// checkpoint reads that is lost with the row of an older checkpoint, which
// does not match its checksum, fails the Prune with that row's
// checkpoint.ErrCorrupt, deleting nothing; a checkpoint that damage
// deleted before the oldest kept one stays reported missing.
func (s *Saver) Prune(ctx context.Context, threadID string, keep int) error {
	if keep < 0 {
		return fmt.Errorf("sqlite: prune thread %q: negative keep %d", threadID, keep)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		drop, gone, err := planPrune(ctx, tx, threadID, keep)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE thread_id = ?1 AND (ns, id) IN (
	SELECT ns, id FROM (
		SELECT ns, id, row_number() OVER (PARTITION BY ns ORDER BY id DESC) AS rn
		FROM checkpoints WHERE thread_id = ?1
	) WHERE rn > ?2
)`, threadID, keep)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		if err := dropBlobs(ctx, tx, threadID, drop); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM writes WHERE thread_id = ?1 AND NOT EXISTS (
	SELECT 1 FROM checkpoints c
	WHERE c.thread_id = ?1 AND c.ns = writes.ns AND c.id = writes.checkpoint_id
)`, threadID); err != nil {
			return err
		}
		return resealOldest(ctx, tx, threadID, gone)
	})
	if err != nil {
		if errors.Is(err, checkpoint.ErrCorrupt) {
			return err
		}
		return withCtx(ctx, fmt.Errorf("sqlite: prune thread %q: %w", threadID, err))
	}
	return nil
}
