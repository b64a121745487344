package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Sizer = (*Saver)(nil)

// threadSizeQuery counts a thread's rows and the bytes of their payloads:
// a checkpoint's versions, metadata and inline values, a blob's data, a
// write's value.
const threadSizeQuery = `
SELECT
	(SELECT count(*) FROM checkpoints WHERE thread_id = ?1),
	(SELECT count(*) FROM writes WHERE thread_id = ?1),
	(SELECT coalesce(sum(length(versions) + length(metadata) + coalesce(length(inline), 0)), 0) FROM checkpoints WHERE thread_id = ?1)
	+ (SELECT coalesce(sum(coalesce(length(data), 0)), 0) FROM blobs WHERE thread_id = ?1)
	+ (SELECT coalesce(sum(coalesce(length(value), 0)), 0) FROM writes WHERE thread_id = ?1)`

// ThreadSize reports the thread's checkpoints and pending writes in every
// namespace, and the bytes of its rows' payloads (versions, metadata,
// values and writes, without SQLite's pages and indexes), in one read
// transaction.
func (s *Saver) ThreadSize(ctx context.Context, threadID string) (checkpoint.Size, error) {
	var size checkpoint.Size
	err := s.read(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, threadSizeQuery, threadID).Scan(&size.Checkpoints, &size.Writes, &size.Bytes)
	})
	if err != nil {
		return checkpoint.Size{}, withCtx(ctx, fmt.Errorf("sqlite: size of thread %q: %w", threadID, err))
	}
	return size, nil
}
