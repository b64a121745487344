package sqlite

import (
	"database/sql"
	"slices"
)

// rowScanner scans the rows of checkpointCols of one query (List's pages)
// into buffers it reuses: the JSON columns are decoded before the next
// row, and the inline columns, which the values read from them point
// into, are copied into an arena that grows a chunk at a time rather
// than a slice each.
type rowScanner struct {
	thread, ns string
	// in makes each repeated string once; nil (a scanner of one row)
	// makes every string.
	in         *interner
	inTable    interner
	id, parent string
	created    any
	versions   sql.RawBytes
	md         sql.RawBytes
	prev       sql.NullString
	same       bool
	nwrites    sql.NullInt64
	crc        sql.NullInt64
	inline     sql.RawBytes
	dest       [10]any
	arena      []byte
}

// arenaChunk is the size of a new arena of a rowScanner.
const arenaChunk = 16 << 10

// newRowScanner returns a scanner of many rows of thread and namespace
// ns (a List): it interns their strings and copies their inline columns
// into an arena. A scanner of one row is a zero rowScanner, init'ed.
func newRowScanner(thread, ns string) *rowScanner {
	sc := &rowScanner{}
	sc.init(thread, ns)
	sc.in = &sc.inTable
	return sc
}

func (sc *rowScanner) init(thread, ns string) {
	sc.thread, sc.ns = thread, ns
	sc.dest = [10]any{&sc.id, &sc.parent, &sc.created, &sc.versions, &sc.md, &sc.prev, &sc.same, &sc.nwrites, &sc.crc, &sc.inline}
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
	samePrev(&r, sc.same)
	switch {
	case len(sc.inline) == 0:
	case sc.in == nil:
		r.inline = slices.Clone(sc.inline)
	default:
		if cap(sc.arena)-len(sc.arena) < len(sc.inline) {
			sc.arena = make([]byte, 0, max(arenaChunk, len(sc.inline)))
		}
		start := len(sc.arena)
		sc.arena = append(sc.arena, sc.inline...)
		r.inline = sc.arena[start:len(sc.arena):len(sc.arena)]
	}
	return r, decodeRow(sc.thread, sc.ns, &r, sc.created, sc.versions, sc.md, sc.crc, sc.in)
}
