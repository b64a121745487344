package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stategraph/stategraph/checkpoint"
)

// DeleteThread removes every checkpoint, blob, pending write and head of
// the thread, in every namespace, in one transaction. Deleting a thread
// that does not exist is not an error.
func (s *Saver) DeleteThread(ctx context.Context, threadID string) error {
	if checkText(field{"thread id", threadID}) != nil {
		return nil // no stored thread has such an id
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, q := range s.q.deleteAll {
			batch.Queue(q, threadID)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		return s.reseal(ctx, tx, threadID)
	})
	if err != nil {
		return fmt.Errorf("postgres: delete thread %q: %w", threadID, err)
	}
	return nil
}

// CopyThread copies every checkpoint, blob, pending write and head of src
// into dst, in one repeatable-read transaction, so the copy is a
// consistent snapshot of src even while src advances. dst must not exist
// (checkpoint.ErrConflict otherwise); a src without checkpoints is
// checkpoint.ErrNotFound.
func (s *Saver) CopyThread(ctx context.Context, src, dst string) error {
	if src == dst {
		return fmt.Errorf("postgres: copy thread %q to itself: %w", src, checkpoint.ErrConflict)
	}
	if checkText(field{"thread id", src}) != nil {
		return fmt.Errorf("postgres: copy thread %q to %q: thread %q has no checkpoints: %w", src, dst, src, checkpoint.ErrNotFound)
	}
	if err := checkText(field{"destination thread id", dst}); err != nil {
		return fmt.Errorf("postgres: copy thread %q to %q: %w", src, dst, err)
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var srcN, dstN int
		err := tx.QueryRow(ctx, `SELECT
	(SELECT count(*) FROM `+s.t.checkpoints+` WHERE thread_id = $1),
	(SELECT count(*) FROM `+s.t.checkpoints+` WHERE thread_id = $2) + (SELECT count(*) FROM `+s.t.heads+` WHERE thread_id = $2)`,
			src, dst).Scan(&srcN, &dstN)
		if err != nil {
			return err
		}
		if srcN == 0 {
			return fmt.Errorf("thread %q has no checkpoints: %w", src, checkpoint.ErrNotFound)
		}
		if dstN > 0 {
			return fmt.Errorf("thread %q exists: %w", dst, checkpoint.ErrConflict)
		}
		if _, err := tx.Exec(ctx, s.q.copyThread[0], src, dst); err != nil {
			return err
		}
		return s.copyRows(ctx, tx, src, dst)
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation {
		// Another copy or run created dst meanwhile.
		err = fmt.Errorf("thread %q exists: %w", dst, checkpoint.ErrConflict)
	}
	if err != nil && errors.Is(err, checkpoint.ErrCorrupt) {
		return err
	}
	if err != nil {
		return fmt.Errorf("postgres: copy thread %q to %q: %w", src, dst, err)
	}
	return nil
}

// Prune keeps the newest keep checkpoints of each namespace of the thread
// and deletes the others with their pending writes, then every blob that
// no kept checkpoint names, directly or through a delta chain. It runs in
// one transaction that holds the thread's heads, so no Put of the thread
// commits meanwhile. keep 0 deletes every checkpoint of the thread; a
// negative keep is an error.
func (s *Saver) Prune(ctx context.Context, threadID string, keep int) error {
	if keep < 0 {
		return fmt.Errorf("postgres: prune thread %q: negative keep %d", threadID, keep)
	}
	if checkText(field{"thread id", threadID}) != nil {
		return nil // no stored thread has such an id
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for i, q := range s.q.prune {
			if i == pruneDeleteCheckpoints {
				batch.Queue(q, threadID, keep)
				continue
			}
			batch.Queue(q, threadID)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		return s.reseal(ctx, tx, threadID)
	})
	if err != nil {
		return fmt.Errorf("postgres: prune thread %q: %w", threadID, err)
	}
	return nil
}
