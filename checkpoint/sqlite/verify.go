package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Verifier = (*Saver)(nil)

// Verify checks every row of the thread, in every namespace: it walks
// each namespace's history as List does (each checkpoint's checksum, the
// link to the one before it, its blobs and delta chains, its count of
// pending writes), checks that each checkpoint's parent is one of them
// (or older than the oldest, which Prune may have removed), and checks
// every blob and pending write row of the thread against its checksum,
// those no checkpoint reads included, and that every write belongs to a
// checkpoint. The first damage is an error wrapping checkpoint.ErrCorrupt
// naming the thread, namespace and checkpoint or blob.
//
// A checkpoint deleted from the head of a namespace leaves a history
// that is a consistent older one; Verify cannot tell it from one that
// never had the newer checkpoint.
func (s *Saver) Verify(ctx context.Context, threadID string) error {
	var nss []string
	err := s.read(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, `SELECT ns FROM checkpoints WHERE thread_id = ?1
UNION SELECT ns FROM blobs WHERE thread_id = ?1
UNION SELECT ns FROM writes WHERE thread_id = ?1 ORDER BY 1`, threadID)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var ns string
			if err := rs.Scan(&ns); err != nil {
				return err
			}
			nss = append(nss, ns)
		}
		return rs.Err()
	})
	if err != nil {
		return withCtx(ctx, fmt.Errorf("sqlite: verify thread %q: %w", threadID, err))
	}
	ids := make(map[string]map[string]bool, len(nss))
	for _, ns := range nss {
		seen, err := s.verifyHistory(ctx, threadID, ns)
		if err != nil {
			return err
		}
		ids[ns] = seen
	}
	err = s.read(ctx, func(tx *sql.Tx) error {
		if err := verifyBlobs(ctx, tx, threadID); err != nil {
			return err
		}
		return verifyWrites(ctx, tx, threadID, ids)
	})
	if err != nil && !isOurs(err) {
		return withCtx(ctx, fmt.Errorf("sqlite: verify thread %q: %w", threadID, err))
	}
	return err
}

// verifyHistory walks one namespace and returns the ids it holds.
func (s *Saver) verifyHistory(ctx context.Context, thread, ns string) (map[string]bool, error) {
	return checkpoint.VerifyHistory(ctx, s, thread, ns, corruptError)
}

func verifyBlobs(ctx context.Context, tx *sql.Tx, thread string) error {
	return eachBlob(ctx, tx, thread, func(storedBlob) error { return nil })
}

// storedBlob is one row of blobs of a thread, as eachBlob read it.
type storedBlob struct {
	ns, channel, version, base string
	delta                      bool
	crc                        int64
	data                       []byte
}

// eachBlob calls fn with every blob row of thread, in key order, each
// checked against its checksum first: a row that does not scan or match
// is ErrCorrupt naming it, and fn is not called for it.
func eachBlob(ctx context.Context, tx *sql.Tx, thread string, fn func(storedBlob) error) error {
	rs, err := tx.QueryContext(ctx, `SELECT ns, channel, version, delta, base, crc, data FROM blobs WHERE thread_id = ? ORDER BY ns, version, channel`, thread)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var b storedBlob
		if err := rs.Scan(&b.ns, &b.channel, &b.version, &b.delta, &b.base, &b.crc, &b.data); err != nil {
			return corruptBlob(thread, b.ns, b.channel, b.version, "%v", err)
		}
		if !blobChecksumOK(b.crc, thread, b.ns, b.channel, b.version, b.delta, b.base, b.data) {
			return corruptBlob(thread, b.ns, b.channel, b.version, "the blob does not match its checksum")
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return rs.Err()
}

func verifyWrites(ctx context.Context, tx *sql.Tx, thread string, ids map[string]map[string]bool) error {
	rs, err := tx.QueryContext(ctx, `SELECT ns, checkpoint_id, task_id, idx, channel, crc, value FROM writes WHERE thread_id = ? ORDER BY ns, checkpoint_id, task_id, idx`, thread)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var ns, id, task, ch string
		var idx, crc int64
		var value []byte
		if err := rs.Scan(&ns, &id, &task, &idx, &ch, &crc, &value); err != nil {
			return corruptError(thread, ns, id, "pending write of task %q: %v", task, err)
		}
		if !writeChecksumOK(crc, thread, ns, id, task, idx, ch, value) {
			return corruptError(thread, ns, id, "pending write %d of task %q does not match its checksum", idx, task)
		}
		if !ids[ns][id] {
			return corruptError(thread, ns, id, "pending write %d of task %q belongs to no stored checkpoint", idx, task)
		}
	}
	return rs.Err()
}
