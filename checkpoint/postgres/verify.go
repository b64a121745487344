package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Verifier = (*Saver)(nil)

// Verify checks every row of the thread, in every namespace: it walks
// each namespace's history from its head as List does (the head names the
// newest checkpoint; each checkpoint's checksum, the link to the one
// before it, its blobs and delta chains, its count of pending writes),
// checks that each checkpoint's parent is one of them (or older than the
// oldest, which Prune may have removed) and that its filter column is
// still the one its metadata makes, and checks every blob and pending
// write row of the thread against its checksum, those no checkpoint reads
// included, and that every write belongs to a checkpoint. The first
// damage is an error wrapping checkpoint.ErrCorrupt naming the thread,
// namespace and checkpoint or blob.
func (s *Saver) Verify(ctx context.Context, threadID string) error {
	rows, err := s.pool.Query(ctx, `SELECT ns FROM `+s.t.checkpoints+` WHERE thread_id = $1
UNION SELECT ns FROM `+s.t.heads+` WHERE thread_id = $1
UNION SELECT ns FROM `+s.t.blobs+` WHERE thread_id = $1
UNION SELECT ns FROM `+s.t.writes+` WHERE thread_id = $1 ORDER BY 1`, threadID)
	if err != nil {
		return fmt.Errorf("postgres: verify thread %q: %w", threadID, err)
	}
	nss, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("postgres: verify thread %q: %w", threadID, err)
	}
	ids := map[string]map[string]bool{}
	for _, ns := range nss {
		seen, err := s.verifyHistory(ctx, threadID, ns)
		if err != nil {
			return err
		}
		ids[ns] = seen
	}
	if err := s.verifyBlobs(ctx, threadID); err != nil {
		return err
	}
	return s.verifyWrites(ctx, threadID, ids)
}

// verifyHistory walks one namespace and returns the ids it holds.
func (s *Saver) verifyHistory(ctx context.Context, thread, ns string) (map[string]bool, error) {
	ids, err := checkpoint.VerifyHistory(ctx, s, thread, ns, corruptError)
	if err != nil || len(ids) == 0 {
		return ids, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, metadata, filter FROM `+s.t.checkpoints+` WHERE thread_id = $1 AND ns = $2`, thread, ns)
	if err != nil {
		return nil, fmt.Errorf("postgres: verify thread %q ns %q: %w", thread, ns, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var md, filter []byte
		if err := rows.Scan(&id, &md, &filter); err != nil {
			return nil, fmt.Errorf("postgres: verify thread %q ns %q: %w", thread, ns, err)
		}
		if !filterMatches(md, filter) {
			return nil, corruptError(thread, ns, id, "the filter column is not the one its metadata makes")
		}
	}
	return ids, rows.Err()
}

// filterMatches reports whether filter holds the flattened metadata md,
// compared after a JSON round trip (jsonb keeps neither key order nor
// number spelling).
func filterMatches(md, filter []byte) bool {
	var m checkpoint.Metadata
	if json.Unmarshal(md, &m) != nil {
		return false
	}
	want, err := json.Marshal(m.Flatten())
	if err != nil {
		return false
	}
	var a, b any
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(filter, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func (s *Saver) verifyBlobs(ctx context.Context, thread string) error {
	rows, err := s.pool.Query(ctx, `SELECT ns, channel, version, data, delta, base, crc FROM `+s.t.blobs+` WHERE thread_id = $1 ORDER BY ns, channel, version`, thread)
	if err != nil {
		return fmt.Errorf("postgres: verify thread %q: %w", thread, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, ch, v, base string
		var data []byte
		var delta bool
		var crc *int64
		if err := rows.Scan(&ns, &ch, &v, &data, &delta, &base, &crc); err != nil {
			return fmt.Errorf("postgres: verify thread %q: %w", thread, err)
		}
		if crc != nil && *crc != blobChecksum(thread, ns, ch, v, data, delta, base) {
			return corruptBlob(thread, ns, ch, v)
		}
	}
	return rows.Err()
}

func (s *Saver) verifyWrites(ctx context.Context, thread string, ids map[string]map[string]bool) error {
	rows, err := s.pool.Query(ctx, `SELECT ns, checkpoint_id, task_id, idx, channel, value, crc FROM `+s.t.writes+` WHERE thread_id = $1 ORDER BY ns, checkpoint_id, task_id, idx`, thread)
	if err != nil {
		return fmt.Errorf("postgres: verify thread %q: %w", thread, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, id, task, ch string
		var idx int32
		var value []byte
		var crc *int64
		if err := rows.Scan(&ns, &id, &task, &idx, &ch, &value, &crc); err != nil {
			return fmt.Errorf("postgres: verify thread %q: %w", thread, err)
		}
		if crc != nil && *crc != writeChecksum(thread, ns, id, task, idx, ch, value) {
			return corruptError(thread, ns, id, "pending write %d of task %q does not match its checksum", idx, task)
		}
		if !ids[ns][id] {
			return corruptError(thread, ns, id, "pending write %d of task %q belongs to no stored checkpoint", idx, task)
		}
	}
	return rows.Err()
}
