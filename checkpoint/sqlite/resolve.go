package sqlite

import (
	"context"
	"database/sql"
)

// sqlInlineOf returns the rows, with values inline, of the checkpoints
// whose ids are in ?3 (a JSON array), with what checkRow needs to check
// them.
const sqlInlineOf = `SELECT id, parent_id, created_at, versions, metadata, prev, nwrites, crc, inline FROM checkpoints
WHERE thread_id = ?1 AND ns = ?2 AND id IN (SELECT value FROM json_each(?3)) AND inline IS NOT NULL`

// loadBlobs returns every blob the rows read (cpRow.reads), with the
// delta chains behind them. A blob is looked for first in the inline
// column of the checkpoint its version belongs to — the rows' own, then,
// round by round, those of the checkpoints the missing versions belong to
// (one query a round) — and then in the blobs table (one query a round,
// which follows chains within the table itself), until no delta has a
// base it has not looked for. Only the blobs a read needs are decoded
// from an inline column. A blob that cannot be read, or whose row does
// not match its checksum, is there marked bad; one that is nowhere is
// absent: rebuild reports both, naming the checkpoint that needs it, and
// load reports instead the damage of the row that should hold an absent
// one, when that is why it is absent (whyMissing).
func (s *Saver) loadBlobs(ctx context.Context, tx *sql.Tx, thread, ns string, rows []cpRow) (map[blobKey]blobRow, error) {
	n := 0
	for i := range rows {
		n += rows[i].nreads()
	}
	if n == 0 {
		return nil, nil // every value skipped
	}
	blobs := make(map[blobKey]blobRow, n)
	// cols holds the inline columns of the checkpoints looked at, by id
	// (nil for one without, or whose row was not found or is damaged):
	// their ids are not asked for again.
	cols := make(map[string][]byte, len(rows))
	for i := range rows {
		cols[rows[i].id] = rows[i].inline
	}
	var ferr error
	// find returns the blob of k: one found before, or the one in the
	// inline column of the checkpoint its version belongs to.
	find := func(k blobKey) (blobRow, bool) {
		if b, ok := blobs[k]; ok {
			return b, true
		}
		owner := versionOwner(k.version)
		col := cols[owner]
		if len(col) == 0 {
			return blobRow{}, false
		}
		b, ok, err := findInline(col, owner, k.channel, k.version)
		if err != nil {
			if ferr == nil {
				ferr = corruptError(thread, ns, owner, "%v", err)
			}
			return blobRow{}, false
		}
		if ok {
			blobs[k] = b
		}
		return b, ok
	}
	// looked holds the keys looked for beyond the inline columns; want
	// those to look for in the next round.
	looked := make(map[blobKey]bool)
	var want []blobKey
	// need follows the chain of k through the blobs found so far and
	// wants the first key of it that is missing, unless it was looked
	// for already.
	need := func(k blobKey) {
		for range len(blobs) + 2 {
			b, ok := find(k)
			if !ok {
				if !looked[k] {
					looked[k] = true
					want = append(want, k)
				}
				return
			}
			if !b.delta || b.base == "" {
				return
			}
			k = blobKey{k.channel, b.base}
		}
		// A loop: rebuild reports it.
	}
	for i := range rows {
		r := &rows[i]
		for ch, v := range r.versions {
			if r.reads(ch) {
				need(blobKey{ch, v})
			}
		}
	}
	for len(want) > 0 && ferr == nil {
		var ids []string
		for _, k := range want {
			if o := versionOwner(k.version); !hasKey(cols, o) {
				cols[o] = nil
				ids = append(ids, o)
			}
		}
		if len(ids) > 0 {
			if err := s.inlineOf(ctx, tx, thread, ns, ids, cols); err != nil {
				return nil, err
			}
		}
		var table []blobKey
		for _, k := range want {
			if _, ok := find(k); !ok {
				table = append(table, k)
			}
		}
		if len(table) > 0 {
			if err := s.tableBlobs(ctx, tx, thread, ns, rows[0].id, table, blobs); err != nil {
				return nil, err
			}
		}
		// The next round: what is still missing behind the keys of this
		// one, found inline or in the table.
		round := want
		want = nil
		for _, k := range round {
			if _, ok := find(k); ok {
				need(k)
			}
		}
	}
	if ferr != nil {
		return nil, ferr
	}
	return blobs, nil
}

func hasKey(m map[string][]byte, k string) bool {
	_, ok := m[k]
	return ok
}

// addInline adds the inline values of checkpoint id to blobs, unless a
// blob of the same key is there already.
func addInline(blobs map[blobKey]blobRow, id string, inline []byte) error {
	return eachInline(inline, id, func(channel, version string, delta bool, base string, data []byte) {
		k := blobKey{channel, version}
		if _, ok := blobs[k]; !ok {
			blobs[k] = blobRow{delta: delta, base: base, data: data}
		}
	})
}

// inlineOf adds to cols the inline columns of the checkpoints ids names
// (those that have any). A row that does not match its checksum adds
// nothing: the blobs a checkpoint needs from it are then missing, and
// load, finding them missing, reports the row (whyMissing).
func (s *Saver) inlineOf(ctx context.Context, tx *sql.Tx, thread, ns string, ids []string, cols map[string][]byte) error {
	rs, err := tx.StmtContext(ctx, s.st.inlineOf).QueryContext(ctx, thread, ns, idsJSON(ids))
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var r cpRow
		var versions, md []byte
		var created any
		var crc sql.NullInt64
		if err := rs.Scan(&r.id, &r.parent, &created, &versions, &md, &r.prev, &r.nwrites, &crc, &r.inline); err != nil {
			continue
		}
		if checkRow(thread, ns, &r, created, versions, md, crc) != nil {
			continue
		}
		cols[r.id] = r.inline
	}
	return rs.Err()
}

// maxChainQueries is the most keys tableBlobs reads a query each for
// (sqlChainOne); more are read with one sqlChain, which reads the chains
// they share once.
const maxChainQueries = 4

// tableBlobs adds to blobs the rows of the blobs table that keys name,
// with the delta chains behind them within the table, and returns the
// reader names the checkpoint in an error.
func (s *Saver) tableBlobs(ctx context.Context, tx *sql.Tx, thread, ns, reader string, keys []blobKey, blobs map[blobKey]blobRow) error {
	if len(keys) <= maxChainQueries {
		// A query per chain: each link looked up once.
		long := keys[:0:0]
		for _, k := range keys {
			n, err := s.chainOf(ctx, tx, thread, ns, reader, k, blobs)
			if err != nil {
				return err
			}
			if n >= maxChainOne {
				long = append(long, k)
			}
		}
		if len(long) == 0 {
			return nil
		}
		keys = long
	}
	chain, err := s.st.chain.inTx(ctx, &s.st, tx)
	if err != nil {
		return err
	}
	rs, err := chain.QueryContext(ctx, thread, ns, seedsJSON(keys))
	if err != nil {
		return err
	}
	defer rs.Close()
	var in interner
	var channel, version, base sql.RawBytes
	for rs.Next() {
		var b blobRow
		var crc int64
		err := rs.Scan(&channel, &version, &b.delta, &base, &crc, &b.data)
		if err != nil && (len(channel) == 0 || len(version) == 0) {
			return corruptError(thread, ns, reader, "a blob cannot be read: %v", err)
		}
		k := blobKey{in.str(channel), in.str(version)}
		b.base = in.str(base)
		addTableBlob(thread, ns, k, b, crc, err, blobs)
	}
	return rs.Err()
}

// chainOf adds to blobs the blob of k with the delta chain behind it
// (sqlChainOne), and returns the number of rows it read.
func (s *Saver) chainOf(ctx context.Context, tx *sql.Tx, thread, ns, reader string, k blobKey, blobs map[blobKey]blobRow) (int, error) {
	rs, err := tx.StmtContext(ctx, s.st.chainOne).QueryContext(ctx, thread, ns, k.channel, k.version)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	n := 0
	var base sql.RawBytes
	for rs.Next() {
		n++
		var b blobRow
		var crc int64
		err := rs.Scan(&b.delta, &base, &crc, &b.data)
		b.base = string(base)
		addTableBlob(thread, ns, k, b, crc, err, blobs)
		if err != nil {
			// The next row's version is this one's base, which did not
			// read: the chain is cut here, which rebuild reports.
			break
		}
		k.version = b.base
	}
	return n, rs.Err()
}

// addTableBlob adds to blobs the blob row b of key k as scanned (err is
// the Scan's), checked against crc, unless the blob is there already
// (inline in its owner's row, which reads first).
func addTableBlob(thread, ns string, k blobKey, b blobRow, crc int64, err error, blobs map[blobKey]blobRow) {
	if err != nil {
		// Reported by rebuild, naming the checkpoint that needs it.
		b = blobRow{bad: true}
	} else {
		b.bad = !blobChecksumOK(crc, thread, ns, k.channel, k.version, b.delta, b.base, b.data)
	}
	if old, ok := blobs[k]; ok && !old.bad {
		return
	}
	blobs[k] = b
}
