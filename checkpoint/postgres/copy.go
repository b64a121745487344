package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyRows copies the checkpoints, blobs and writes of src into dst in
// tx. The checksums cover the thread id, so each row is checked under src
// and stored with its checksum under dst; a row that does not match its
// checksum fails the copy with ErrCorrupt rather than being laundered
// into a valid one. Rows without a checksum are copied without one.
func (s *Saver) copyRows(ctx context.Context, tx pgx.Tx, src, dst string) error {
	batch := &pgx.Batch{}
	rows, err := tx.Query(ctx, `SELECT ns, id, parent_id, created_at, versions, metadata, filter, prev, nwrites, crc
FROM `+s.t.checkpoints+` WHERE thread_id = $1`, src)
	if err != nil {
		return err
	}
	for rows.Next() {
		var (
			parent               *string
			versions, md, filter []byte
			info                 = rowInfo{thread: src}
		)
		if err := rows.Scan(&info.ns, &info.id, &parent, &info.created, &versions, &md, &filter, &info.prev, &info.nwrites, &info.crc); err != nil {
			rows.Close()
			return err
		}
		if parent != nil {
			info.parent = *parent
		}
		crc := info.crc
		if !info.legacy() {
			sum, err := info.resum(dst, versions, md)
			if err != nil {
				rows.Close()
				return err
			}
			crc = &sum
		}
		batch.Queue(`INSERT INTO `+s.t.checkpoints+` (thread_id, ns, id, parent_id, created_at, versions, metadata, filter, prev, nwrites, crc)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			dst, info.ns, info.id, parent, info.created, string(versions), string(md), string(filter), info.prev, info.nwrites, crc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	rows, err = tx.Query(ctx, `SELECT ns, channel, version, data, delta, base, crc FROM `+s.t.blobs+` WHERE thread_id = $1`, src)
	if err != nil {
		return err
	}
	for rows.Next() {
		var ns, ch, v, base string
		var data []byte
		var delta bool
		var crc *int64
		if err := rows.Scan(&ns, &ch, &v, &data, &delta, &base, &crc); err != nil {
			rows.Close()
			return err
		}
		if crc != nil {
			if *crc != blobChecksum(src, ns, ch, v, data, delta, base) {
				rows.Close()
				return corruptBlob(src, ns, ch, v)
			}
			sum := blobChecksum(dst, ns, ch, v, data, delta, base)
			crc = &sum
		}
		batch.Queue(`INSERT INTO `+s.t.blobs+` (thread_id, ns, channel, version, data, delta, base, crc)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, dst, ns, ch, v, data, delta, base, crc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	rows, err = tx.Query(ctx, `SELECT ns, checkpoint_id, task_id, idx, channel, value, crc FROM `+s.t.writes+` WHERE thread_id = $1`, src)
	if err != nil {
		return err
	}
	for rows.Next() {
		var ns, id, task, ch string
		var idx int32
		var value []byte
		var crc *int64
		if err := rows.Scan(&ns, &id, &task, &idx, &ch, &value, &crc); err != nil {
			rows.Close()
			return err
		}
		if crc != nil {
			if *crc != writeChecksum(src, ns, id, task, idx, ch, value) {
				rows.Close()
				return corruptError(src, ns, id, "pending write %d of task %q does not match its checksum", idx, task)
			}
			sum := writeChecksum(dst, ns, id, task, idx, ch, value)
			crc = &sum
		}
		batch.Queue(`INSERT INTO `+s.t.writes+` (thread_id, ns, checkpoint_id, task_id, idx, channel, value, crc)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, dst, ns, id, task, idx, ch, value, crc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return tx.SendBatch(ctx, batch).Close()
}

// resum checks the row under its own thread and returns its checksum as a
// row of thread (with prev as is).
func (r *rowInfo) resum(thread string, versions, md []byte) (int64, error) {
	return r.resumPrev(thread, versions, md, *r.prev)
}

// resumPrev checks the row and returns its checksum as a row of thread
// whose prev is prev.
func (r *rowInfo) resumPrev(thread string, versions, md []byte, prev string) (int64, error) {
	var v map[string]string
	if err := json.Unmarshal(versions, &v); err != nil {
		return 0, r.corrupt("versions: %v", err)
	}
	canon, err := canonicalMetadata(md)
	if err != nil {
		return 0, r.corrupt("metadata: %v", err)
	}
	if r.crc == nil || r.prev == nil || r.nwrites == nil {
		return 0, r.corrupt("crc, prev and nwrites are neither all set nor all NULL")
	}
	if *r.crc != cpChecksum(r.thread, r.ns, r.id, r.parent, r.created, v, canon, *r.prev) {
		return 0, r.corrupt("the checkpoint row does not match its checksum")
	}
	return cpChecksum(thread, r.ns, r.id, r.parent, r.created, v, canon, prev), nil
}

// reseal makes the oldest checkpoint Prune kept in each namespace of the
// thread name no checkpoint before it, so that a walk of the history
// ends there rather than reporting the pruned ones missing. A row that
// does not match its checksum is left as it is, for a read to report:
// Prune does not launder damage.
func (s *Saver) reseal(ctx context.Context, tx pgx.Tx, thread string) error {
	rows, err := tx.Query(ctx, `SELECT ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc
FROM `+s.t.checkpoints+` c WHERE thread_id = $1 AND prev <> ''
	AND id = (SELECT min(id) FROM `+s.t.checkpoints+` WHERE thread_id = $1 AND ns = c.ns)`, thread)
	if err != nil {
		return err
	}
	batch := &pgx.Batch{}
	for rows.Next() {
		var parent *string
		var versions, md []byte
		info := rowInfo{thread: thread}
		var created time.Time
		if err := rows.Scan(&info.ns, &info.id, &parent, &created, &versions, &md, &info.prev, &info.nwrites, &info.crc); err != nil {
			rows.Close()
			return err
		}
		info.created = created
		if parent != nil {
			info.parent = *parent
		}
		sum, err := info.resumPrev(thread, versions, md, "")
		if err != nil {
			continue // damaged: left for a read to report
		}
		batch.Queue(`UPDATE `+s.t.checkpoints+` SET prev = '', crc = $4 WHERE thread_id = $1 AND ns = $2 AND id = $3`,
			thread, info.ns, info.id, sum)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if batch.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, batch).Close()
}
