package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
)

// nsKey names a blob within a thread.
type nsKey struct{ ns, channel, version string }

// blobLink is what the walk of a delta chain needs of a blob.
type blobLink struct {
	delta bool
	base  string
}

// inlineRow is a checkpoint row as planPrune reads it.
type inlineRow struct {
	ns, id string
	kept   bool
	// blobs are its inline values, nil when it has none or when the row
	// does not match its checksum (a read then reports the values it
	// needs from the row missing; Prune does not launder damage).
	blobs map[blobKey]blobRow
}

// planPrune prepares a Prune that keeps the newest keep checkpoints of
// each namespace of thread: it works out the blobs the kept checkpoints
// read — those their versions name and the delta chains behind them, each
// found as a read finds it (inline in the row of the checkpoint its
// version belongs to, else in the blobs table) — copies into the blobs
// table those that are inline in a row the prune deletes, and returns the
// rows of the blobs table that no kept checkpoint reads, for dropBlobs to
// delete once the checkpoints are gone, and the checkpoints the prune
// deletes (by namespace and id), for resealOldest. A value a kept
// checkpoint reads that is missing because the row that should hold it,
// which the prune deletes, is damaged (whyMissing) is that damage: the
// prune would leave only the value missing to report.
func planPrune(ctx context.Context, tx *sql.Tx, thread string, keep int) ([]nsKey, map[[2]string]bool, error) {
	rs, err := tx.QueryContext(ctx, `SELECT ns, id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline,
	row_number() OVER (PARTITION BY ns ORDER BY id DESC) <= ?2
FROM checkpoints WHERE thread_id = ?1`, thread, keep)
	if err != nil {
		return nil, nil, err
	}
	rows := make(map[[2]string]*inlineRow)
	var kept []map[string]string
	var keptNS []string
	for rs.Next() {
		var r cpRow
		var ns string
		var created any
		var versions, md []byte
		var crc sql.NullInt64
		var isKept bool
		if err := rs.Scan(&ns, &r.id, &r.parent, &created, &versions, &md, &r.prev, &r.nwrites, &crc, &r.inline, &isKept); err != nil {
			rs.Close()
			return nil, nil, err
		}
		row := &inlineRow{ns: ns, id: r.id, kept: isKept}
		if len(r.inline) > 0 && checkRow(thread, ns, &r, created, versions, md, crc) == nil {
			row.blobs = make(map[blobKey]blobRow)
			if addInline(row.blobs, r.id, r.inline) != nil {
				row.blobs = nil
			}
		}
		rows[[2]string{ns, r.id}] = row
		if isKept {
			if v, err := decodeVersionsIn(versions, nil, r.id, relCRC(crc)); err == nil {
				kept = append(kept, v)
				keptNS = append(keptNS, ns)
			}
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, nil, err
	}

	table := make(map[nsKey]blobLink)
	bs, err := tx.QueryContext(ctx, `SELECT ns, channel, version, delta, base FROM blobs WHERE thread_id = ?`, thread)
	if err != nil {
		return nil, nil, err
	}
	for bs.Next() {
		var k nsKey
		var l blobLink
		if err := bs.Scan(&k.ns, &k.channel, &k.version, &l.delta, &l.base); err != nil {
			bs.Close()
			return nil, nil, err
		}
		table[k] = l
	}
	bs.Close()
	if err := bs.Err(); err != nil {
		return nil, nil, err
	}

	// The walk: keep the table rows reached, and copy the inline values
	// reached in rows that go.
	keepRow := make(map[nsKey]bool)
	type move struct {
		k nsKey
		b blobRow
	}
	var moves []move
	seen := make(map[nsKey]bool)
	for i, versions := range kept {
		ns := keptNS[i]
		for ch, v := range versions {
			k := nsKey{ns, ch, v}
			for range len(table) + len(rows) + 1 {
				if seen[k] {
					break
				}
				seen[k] = true
				var link blobLink
				if owner := rows[[2]string{ns, versionOwner(v)}]; owner != nil && owner.blobs != nil {
					if b, ok := owner.blobs[blobKey{k.channel, k.version}]; ok {
						if !owner.kept {
							moves = append(moves, move{k, b})
						}
						link = blobLink{b.delta, b.base}
						goto next
					}
				}
				if l, ok := table[k]; ok {
					keepRow[k] = true
					link = l
				} else {
					// Missing: a read reports it, and why, unless the
					// why goes with this prune (the row that should hold
					// it, damaged, among those it deletes). A row absent
					// stays so: resealOldest leaves its gap.
					if owner := rows[[2]string{ns, versionOwner(v)}]; owner != nil && !owner.kept {
						if err := whyMissing(ctx, tx, thread, ns, &missingBlob{version: v}); err != nil {
							return nil, nil, err
						}
					}
					break
				}
			next:
				if !link.delta || link.base == "" {
					break
				}
				k.version, v = link.base, link.base
			}
		}
	}

	ins, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO blobs (thread_id, ns, channel, version, delta, base, crc, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, nil, err
	}
	defer ins.Close()
	for _, m := range moves {
		k, b := m.k, m.b
		crc := blobChecksum(thread, k.ns, k.channel, k.version, b.delta, b.base, b.data)
		if _, err := ins.ExecContext(ctx, thread, k.ns, k.channel, k.version, b.delta, b.base, crc, b.data); err != nil {
			return nil, nil, err
		}
	}
	var drop []nsKey
	for k := range table {
		if !keepRow[k] {
			drop = append(drop, k)
		}
	}
	gone := make(map[[2]string]bool)
	for k, r := range rows {
		if !r.kept {
			gone[k] = true
		}
	}
	return drop, gone, nil
}

// dropBlobs deletes the rows of the blobs table of thread that keys name.
func dropBlobs(ctx context.Context, tx *sql.Tx, thread string, keys []nsKey) error {
	const batch = 500
	for len(keys) > 0 {
		n := min(len(keys), batch)
		list := make([][3]string, n)
		for i, k := range keys[:n] {
			list[i] = [3]string{k.ns, k.version, k.channel}
		}
		arg, _ := json.Marshal(list) // strings only: cannot fail
		if _, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE thread_id = ?1 AND (ns, version, channel) IN (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?2))`, thread, arg); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
