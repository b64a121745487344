package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// PutWritesTx begins a write transaction, calls fn with it (a *sql.Tx on
// the database file the Saver uses), stores the writes fn returns as
// PutWrites would, and commits: the rows fn wrote and the task's writes
// are stored together or not at all. An error of fn rolls back and is
// returned as it is. fn runs holding the Saver's write lock, so it must
// not write through the Saver (nor through another connection to the
// file, which would wait for the lock fn holds). The graph runtime's
// Transact calls it (graph.TxSaver).
func (s *Saver) PutWritesTx(ctx context.Context, cfg checkpoint.Config, taskID string, fn func(tx any) ([]checkpoint.PendingWrite, error)) error {
	if cfg.CheckpointID == "" {
		return notFoundError(cfg)
	}
	fence := s.fenceOf(ctx, cfg.ThreadID)
	var fnErr error
	err := s.write(ctx, func(tx *sql.Tx) error {
		writes, err := fn(tx)
		if err != nil {
			fnErr = err
			return err
		}
		return s.putWritesTx(ctx, tx, cfg, taskID, writes, fence)
	})
	switch {
	case err == nil:
		return nil
	case fnErr != nil:
		return fnErr
	case isOurs(err):
		return err
	}
	return withCtx(ctx, fmt.Errorf("sqlite: put writes of task %q in a transaction on thread %q namespace %q checkpoint %q: %w", taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err))
}
