package postgres

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Sizer = (*Saver)(nil)

// threadSizeSQL counts a thread's rows and the bytes of their payloads: a
// checkpoint's versions and metadata (as JSON text), a blob's data, a
// write's value. One statement: one snapshot.
func threadSizeSQL(t tables) string {
	return `SELECT
	(SELECT count(*) FROM ` + t.checkpoints + ` WHERE thread_id = $1),
	(SELECT count(*) FROM ` + t.writes + ` WHERE thread_id = $1),
	(SELECT coalesce(sum(octet_length(versions::text) + octet_length(metadata::text)), 0) FROM ` + t.checkpoints + ` WHERE thread_id = $1)
	+ (SELECT coalesce(sum(coalesce(octet_length(data), 0)), 0) FROM ` + t.blobs + ` WHERE thread_id = $1)
	+ (SELECT coalesce(sum(coalesce(octet_length(value), 0)), 0) FROM ` + t.writes + ` WHERE thread_id = $1)`
}

// ThreadSize reports the thread's checkpoints and pending writes in every
// namespace, and the bytes of its rows' payloads (versions and metadata
// as JSON text, values and writes, without PostgreSQL's pages, TOAST
// compression and indexes), in one statement.
func (s *Saver) ThreadSize(ctx context.Context, threadID string) (checkpoint.Size, error) {
	var size checkpoint.Size
	if checkText(field{"thread id", threadID}) != nil {
		return size, nil // no stored thread has such an id
	}
	err := s.pool.QueryRow(ctx, threadSizeSQL(s.t), threadID).Scan(&size.Checkpoints, &size.Writes, &size.Bytes)
	if err != nil {
		return checkpoint.Size{}, fmt.Errorf("postgres: size of thread %q: %w", threadID, err)
	}
	return size, nil
}
