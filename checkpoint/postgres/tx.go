package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stategraph/stategraph/checkpoint"
)

// PutWritesTx begins a transaction on the Saver's pool, calls fn with it
// (a pgx.Tx), stores the writes fn returns as PutWrites would, and
// commits: the rows fn wrote and the task's writes are stored together or
// not at all. An error of fn rolls back and is returned as it is. The
// graph runtime's Transact calls it (graph.TxSaver). fn's rows may live
// in any schema the pool's user can write: the transaction is the same.
func (s *Saver) PutWritesTx(ctx context.Context, cfg checkpoint.Config, taskID string, fn func(tx any) ([]checkpoint.PendingWrite, error)) error {
	fail := func(err error) error {
		return fmt.Errorf("postgres: put writes of task %q in a transaction on thread %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.CheckpointID, err)
	}
	if cfg.CheckpointID == "" {
		return fail(checkpoint.ErrNotFound)
	}
	if err := checkText(field{"thread id", cfg.ThreadID}, field{"namespace", cfg.Namespace}, field{"checkpoint id", cfg.CheckpointID}, field{"task id", taskID}); err != nil {
		return fail(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fail(withCtx(ctx, err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after a commit: nothing to roll back
	writes, err := fn(tx)
	if err != nil {
		return err
	}
	if len(writes) > 0 {
		// One row per index, as PutWrites stores them: the first of a
		// non-negative index, the last of a negative one.
		seen := make(map[int]int, len(writes))
		var idx []int32
		var channels []string
		var values [][]byte
		var sums []int64
		for _, w := range writes {
			if err := checkText(field{"channel of a write", w.Channel}); err != nil {
				return fail(err)
			}
			if w.Index < math.MinInt32 || w.Index > math.MaxInt32 {
				return fail(fmt.Errorf("index %d out of range", w.Index))
			}
			sum := writeChecksum(cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, int32(w.Index), w.Channel, w.Value)
			if i, dup := seen[w.Index]; dup {
				if w.Index < 0 {
					channels[i], values[i], sums[i] = w.Channel, w.Value, sum
				}
				continue
			}
			seen[w.Index] = len(idx)
			idx, channels, values, sums = append(idx, int32(w.Index)), append(channels, w.Channel), append(values, w.Value), append(sums, sum)
		}
		fence := s.fenceOf(ctx, cfg.ThreadID)
		tag, err := tx.Exec(ctx, s.q.putWrites, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, idx, channels, values, sums, fence.fenceToken())
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == codeForeignKeyViolation:
			return s.writesNotFound(cfg, taskID)
		case err != nil:
			return fail(withCtx(ctx, err))
		case tag.RowsAffected() == 0:
			if lost := s.fenceLostTx(ctx, tx, fence); lost != nil {
				return fail(lost)
			}
			return s.writesNotFound(cfg, taskID)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(withCtx(ctx, err))
	}
	return nil
}

// fenceLostTx is fenceLost in a transaction.
func (s *Saver) fenceLostTx(ctx context.Context, tx pgx.Tx, l *pgLease) error {
	if l == nil {
		return nil
	}
	var held bool
	if err := tx.QueryRow(ctx, s.q.fenceHeld, l.info.Thread, l.token).Scan(&held); err != nil {
		return err
	}
	if held {
		return nil
	}
	return checkpoint.FenceLostError(l.info.Thread, l.Info().Holder)
}
