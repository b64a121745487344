package sqlite

import "database/sql"

// rowScanner scans the rows of checkpointCols of one query (List's pages)
// into buffers it reuses: the JSON columns are decoded before the next
// row, and the inline columns, which the values read from them point
// into, are copied into an arena that grows a chunk at a time rather
// than a slice each.
type rowScanner struct {
	thread, ns string
	in         interner
	id, parent string
	created    any
	versions   sql.RawBytes
	md         sql.RawBytes
	prev       sql.NullString
	nwrites    sql.NullInt64
	crc        sql.NullInt64
	inline     sql.RawBytes
	dest       [9]any
	arena      []byte
}

// arenaChunk is the size of a new arena of a rowScanner.
const arenaChunk = 16 << 10

func newRowScanner(thread, ns string) *rowScanner {
	sc := &rowScanner{thread: thread, ns: ns}
	sc.dest = [9]any{&sc.id, &sc.parent, &sc.created, &sc.versions, &sc.md, &sc.prev, &sc.nwrites, &sc.crc, &sc.inline}
	return sc
}

// scan reads the current row of rs.
func (sc *rowScanner) scan(rs *sql.Rows) (cpRow, error) {
	sc.id, sc.inline = "", sc.inline[:0]
	if err := rs.Scan(sc.dest[:]...); err != nil {
		if sc.id != "" {
			return cpRow{id: sc.id}, corruptError(sc.thread, sc.ns, sc.id, "%v", err)
		}
		return cpRow{}, err
	}
	r := cpRow{id: sc.id, parent: sc.parent, prev: sc.prev, nwrites: sc.nwrites}
	if len(sc.inline) > 0 {
		if cap(sc.arena)-len(sc.arena) < len(sc.inline) {
			sc.arena = make([]byte, 0, max(arenaChunk, len(sc.inline)))
		}
		start := len(sc.arena)
		sc.arena = append(sc.arena, sc.inline...)
		r.inline = sc.arena[start:len(sc.arena):len(sc.arena)]
	}
	return r, decodeRow(sc.thread, sc.ns, &r, sc.created, sc.versions, sc.md, sc.crc, &sc.in)
}
