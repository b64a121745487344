package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// copyRows copies every row of thread src into dst, in one transaction,
// and returns how many checkpoints it copied. The checksums of this
// version cover the thread id, so each row is checked under src and
// stored with its checksum under dst; a row that does not match its
// checksum fails the copy with ErrCorrupt rather than being laundered
// into a valid one. Rows of older kinds, which do not cover the thread,
// keep their checksum.
func copyRows(ctx context.Context, tx *sql.Tx, src, dst string) (int, error) {
	n := 0
	rs, err := tx.QueryContext(ctx, `SELECT ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline
FROM checkpoints WHERE thread_id = ? ORDER BY ns, id`, src)
	if err != nil {
		return 0, err
	}
	type cp struct {
		ns, id, parent string
		created        any
		versions, md   []byte
		prev           sql.NullString
		nwrites, crc   sql.NullInt64
		inline         []byte
	}
	var cps []cp
	for rs.Next() {
		var c cp
		if err := rs.Scan(&c.ns, &c.id, &c.parent, &c.created, &c.versions, &c.md, &c.prev, &c.nwrites, &c.crc, &c.inline); err != nil {
			rs.Close()
			return 0, err
		}
		cps = append(cps, c)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO checkpoints (thread_id, ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	for _, c := range cps {
		row := cpRow{id: c.id, parent: c.parent, prev: c.prev, nwrites: c.nwrites, inline: c.inline}
		if err := checkRow(src, c.ns, &row, c.created, c.versions, c.md, c.crc); err != nil {
			return 0, err
		}
		if !row.legacy {
			c.crc.Int64 = cpChecksum(dst, c.ns, c.id, c.parent, c.created, c.versions, c.md, c.prev.String, c.inline, row.rel)
		}
		if _, err := ins.ExecContext(ctx, dst, c.ns, c.id, c.parent, c.created, c.versions, c.md, c.prev, c.nwrites, c.crc, inlineArg(c.inline)); err != nil {
			return 0, err
		}
		n++
	}
	if err := copyBlobs(ctx, tx, src, dst); err != nil {
		return 0, err
	}
	return n, copyWrites(ctx, tx, src, dst)
}

func copyBlobs(ctx context.Context, tx *sql.Tx, src, dst string) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO blobs (thread_id, ns, channel, version, delta, base, crc, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer ins.Close()
	return eachBlob(ctx, tx, src, func(b storedBlob) error {
		crc := b.crc
		if crc >= blobRowKind {
			crc = blobChecksum(dst, b.ns, b.channel, b.version, b.delta, b.base, b.data)
		}
		_, err := ins.ExecContext(ctx, dst, b.ns, b.channel, b.version, b.delta, b.base, crc, b.data)
		return err
	})
}

func copyWrites(ctx context.Context, tx *sql.Tx, src, dst string) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO writes (thread_id, ns, checkpoint_id, task_id, idx, channel, crc, value)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	rs, err := tx.QueryContext(ctx, `SELECT ns, checkpoint_id, task_id, idx, channel, crc, value FROM writes WHERE thread_id = ?`, src)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var ns, id, task, ch string
		var idx, crc int64
		var value []byte
		if err := rs.Scan(&ns, &id, &task, &idx, &ch, &crc, &value); err != nil {
			return corruptError(src, ns, id, "pending write of task %q: %v", task, err)
		}
		if !writeChecksumOK(crc, src, ns, id, task, idx, ch, value) {
			return corruptError(src, ns, id, "pending write %d of task %q does not match its checksum", idx, task)
		}
		if crc >= writeRowKind {
			crc = writeChecksum(dst, ns, id, task, idx, ch, value)
		}
		if _, err := ins.ExecContext(ctx, dst, ns, id, task, idx, ch, crc, value); err != nil {
			return err
		}
	}
	return rs.Err()
}

// resealOldest makes the oldest checkpoint Prune kept in each namespace
// of the thread name no checkpoint before it, so that a walk of the
// history ends there rather than reporting the pruned ones missing: when
// the one it names is among those the prune deleted (gone, by namespace
// and id). A row that does not match its checksum, and one that names a
// checkpoint missing before the prune, are left as they are: Prune does
// not launder damage.
func resealOldest(ctx context.Context, tx *sql.Tx, thread string, gone map[[2]string]bool) error {
	rs, err := tx.QueryContext(ctx, `SELECT ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline
FROM checkpoints c WHERE thread_id = ?1 AND prev <> ''
	AND id = (SELECT min(id) FROM checkpoints WHERE thread_id = ?1 AND ns = c.ns)`, thread)
	if err != nil {
		return err
	}
	type reseal struct {
		ns, id string
		crc    int64
	}
	var todo []reseal
	for rs.Next() {
		var ns string
		var r cpRow
		var created any
		var versions, md []byte
		var crc sql.NullInt64
		if err := rs.Scan(&ns, &r.id, &r.parent, &created, &versions, &md, &r.prev, &r.nwrites, &crc, &r.inline); err != nil {
			rs.Close()
			return err
		}
		if !gone[[2]string{ns, r.prev.String}] {
			continue // a gap the prune did not make: left for a read to report
		}
		if checkRow(thread, ns, &r, created, versions, md, crc) != nil {
			continue // damaged: left for a read to report
		}
		todo = append(todo, reseal{ns, r.id, cpChecksum(thread, ns, r.id, r.parent, created, versions, md, "", r.inline, r.rel)})
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return err
	}
	for _, r := range todo {
		if _, err := tx.ExecContext(ctx, `UPDATE checkpoints SET prev = '', crc = ? WHERE thread_id = ? AND ns = ? AND id = ?`,
			r.crc, thread, r.ns, r.id); err != nil {
			return err
		}
	}
	return nil
}

// corruptBlob names a damaged blob.
func corruptBlob(thread, ns, channel, version, format string, args ...any) error {
	return fmt.Errorf("sqlite: thread %q namespace %q blob of channel %q version %q: %s: %w",
		thread, ns, channel, version, fmt.Sprintf(format, args...), checkpoint.ErrCorrupt)
}
