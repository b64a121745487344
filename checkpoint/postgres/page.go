package postgres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// The sizes of List's pages: the first is one checkpoint, so that the
// first item comes after one round trip (two when SkipValue leaves
// values to read) whatever the history's length; each page after it is
// pageGrowth times the one before, up to maxPage, so that a long history
// costs few round trips and a page's rows stay bounded.
const (
	firstPage  = 1
	pageGrowth = 16
	maxPage    = 1024
)

// nextPage returns the size of the page after one of n checkpoints (0:
// the first page).
func nextPage(n int) int {
	if n == 0 {
		return firstPage
	}
	return min(n*pageGrowth, maxPage)
}

// The kinds of the rows a page's statements return, in their first
// column. The columns after it are shared:
//
//	k  a        b         c        t        j         m         n        x    d      f
//	0  id       parent_id prev     created  versions  metadata  nwrites  crc
//	1  head
//	2  channel  version   base                                           crc  data   delta
//	3  cp id    task_id   channel                               idx      crc  value
//	4  cp id (a checkpoint that is still stored)
const (
	rowCheckpoint = iota
	rowHead
	rowBlob
	rowWrite
	rowExists
)

// Column indices of a page's rows.
const (
	colKind = iota
	colA
	colB
	colC
	colT
	colJ
	colM
	colN
	colX
	colD
	colF
)

// blobScope says which blobs a page's first statement reads.
type blobScope int

const (
	// blobsAll reads every channel's blob, with the delta chains behind
	// them.
	blobsAll blobScope = iota
	// blobsSchedule reads the blob of checkpoint.NextChannel alone, by a
	// primary-key probe per checkpoint: the one reserved channel the
	// runtime stores as a value, a full blob. What else a page must read
	// (another reserved channel, a schedule stored as a delta, the fields
	// SkipValue does not skip) its second statement reads.
	blobsSchedule
)

// pageSQL returns the first statement of a page: the checkpoints f
// selects, the head (for a page read from the head), the blobs of scope
// and the pending writes — one statement, so one round trip and one
// snapshot without a transaction.
func (s *Saver) pageSQL(cfg checkpoint.Config, f pageFilter, scope blobScope, fromHead bool) (string, []any) {
	where, args := f.sql(cfg)
	key := pageKey{where, scope, fromHead, f.contains == "", f.limit == 1}
	if q, ok := s.pages.Load(key); ok {
		return q.(string), args
	}
	q := s.buildPageSQL(key)
	s.pages.Store(key, q)
	return q, args
}

// pageKey names a page statement: its WHERE clause (the arguments are
// parameters), blobs and head, and whether the page's ids are every id
// of the namespace between its oldest and newest (no metadata filter). A
// Saver keeps the few statements it builds.
type pageKey struct {
	where      string
	scope      blobScope
	fromHead   bool
	contiguous bool
	single     bool // a page of one checkpoint (windowSQL)
}

// buildPageSQL writes the statement pageSQL returns. A contiguous page
// reads its pending writes, and the schedules named after their
// checkpoints (as the runtime names them), by one index range scan over
// its span of ids each, rather than a probe per checkpoint; the
// schedules named otherwise are probed one by one. A page of one
// checkpoint reads its delta chains by windowSQL's range scans, a longer
// one by chainSQL's walk, which reads each blob the page's checkpoints
// share once.
func (s *Saver) buildPageSQL(k pageKey) string {
	t := s.t
	scope, fromHead := k.scope, k.fromHead
	var b strings.Builder
	b.WriteString(`WITH RECURSIVE page AS (
	SELECT id, parent_id, created_at, versions, metadata, prev, nwrites, crc FROM ` + t.checkpoints + k.where + `
),
span AS (SELECT min(id) AS lo, max(id) AS hi FROM page)`)
	var window string
	if scope == blobsAll {
		b.WriteString(`,
want AS (
	SELECT DISTINCT v.key COLLATE "C" AS channel, v.value COLLATE "C" AS version
	FROM page, jsonb_each_text(CASE WHEN jsonb_typeof(page.versions) = 'object' THEN page.versions ELSE '{}'::jsonb END) AS v
)`)
		if k.single {
			var cte string
			cte, window = s.windowSQL()
			b.WriteString(cte)
		} else {
			b.WriteString(`,` + s.chainSQL())
		}
	}
	b.WriteString(`
SELECT 0::int2, id, parent_id, prev, created_at, versions::text, metadata::text, nwrites, crc, NULL::bytea, NULL::boolean FROM page`)
	if fromHead {
		b.WriteString(`
UNION ALL
SELECT 1, head, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM ` + t.heads + ` WHERE thread_id = $1 AND ns = $2`)
	}
	b.WriteString(`
UNION ALL
`)
	switch {
	case scope == blobsAll && k.single:
		b.WriteString(window)
	case scope == blobsAll:
		b.WriteString(s.chainRowsSQL())
	default:
		next := `'` + checkpoint.NextChannel + `'`
		probed := ""
		if k.contiguous {
			probed = `
WHERE (p.versions ->> ` + next + `) <> p.id`
			b.WriteString(`SELECT 2, b.channel, b.version, b.base, NULL, NULL, NULL, NULL, b.crc, b.data, b.delta
FROM span CROSS JOIN LATERAL (
	SELECT b.channel, b.version, b.base, b.crc, b.data, b.delta FROM ` + t.blobs + ` b
	WHERE b.thread_id = $1 AND b.ns = $2 AND b.version >= span.lo AND b.version <= span.hi AND b.channel = ` + next + `
	OFFSET 0
) b
UNION ALL
`)
		}
		b.WriteString(`SELECT 2, b.channel, b.version, b.base, NULL, NULL, NULL, NULL, b.crc, b.data, b.delta
FROM page p CROSS JOIN LATERAL (
	SELECT b.channel, b.version, b.base, b.crc, b.data, b.delta FROM ` + t.blobs + ` b
	WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = ` + next + `
		AND b.version = (p.versions ->> ` + next + `) COLLATE "C"
	LIMIT 1
) b` + probed)
	}
	b.WriteString(`
UNION ALL
`)
	if k.contiguous {
		b.WriteString(`SELECT 3, w.checkpoint_id, w.task_id, w.channel, NULL, NULL, NULL, w.idx, w.crc, w.value, NULL
FROM span CROSS JOIN LATERAL (
	SELECT w.checkpoint_id, w.task_id, w.idx, w.channel, w.value, w.crc FROM ` + t.writes + ` w
	WHERE w.thread_id = $1 AND w.ns = $2 AND w.checkpoint_id >= span.lo AND w.checkpoint_id <= span.hi
	OFFSET 0
) w`)
	} else {
		b.WriteString(`SELECT 3, p.id, w.task_id, w.channel, NULL, NULL, NULL, w.idx, w.crc, w.value, NULL
FROM page p CROSS JOIN LATERAL (
	SELECT w.task_id, w.idx, w.channel, w.value, w.crc FROM ` + t.writes + ` w
	WHERE w.thread_id = $1 AND w.ns = $2 AND w.checkpoint_id = p.id
	OFFSET 0
) w`)
	}
	return b.String()
}

// chainSQL is the CTE that walks the blobs of want (channel, version)
// and the delta chains behind them. The lookups are LATERAL primary-key
// probes (LIMIT 1 keeps the planner from flattening them into joins), so
// even a generic plan that guesses one row per thread walks the index
// rather than scanning the thread's blobs once per step of a chain.
func (s *Saver) chainSQL() string {
	return `
chain (channel, version, delta, base) AS (
	SELECT b.channel, b.version, b.delta, b.base
	FROM want w CROSS JOIN LATERAL (
		SELECT b.channel, b.version, b.delta, b.base FROM ` + s.t.blobs + ` b
		WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = w.channel AND b.version = w.version
		LIMIT 1
	) b
	UNION
	SELECT b.channel, b.version, b.delta, b.base
	FROM chain c CROSS JOIN LATERAL (
		SELECT b.channel, b.version, b.delta, b.base FROM ` + s.t.blobs + ` b
		WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = c.channel AND b.version = c.base
		LIMIT 1
	) b
	WHERE c.delta AND c.base <> ''
)`
}

// chainRowsSQL selects the blob rows chain found, as rows of kind 2.
func (s *Saver) chainRowsSQL() string {
	return `SELECT 2::int2, b.channel, b.version, b.base, NULL::timestamptz, NULL::text, NULL::text, NULL::integer, b.crc, b.data, b.delta
FROM chain c CROSS JOIN LATERAL (
	SELECT b.channel, b.version, b.data, b.delta, b.base, b.crc FROM ` + s.t.blobs + ` b
	WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = c.channel AND b.version = c.version
	LIMIT 1
) b`
}

// valuesSQL is the second statement of a page that SkipValue left values
// to read: the blobs of the (channel, version) pairs $3 and $4, with
// their delta chains, and which of the checkpoints $5 are still stored.
func (s *Saver) valuesSQL() string {
	return `WITH RECURSIVE want AS (
	SELECT w.channel COLLATE "C" AS channel, w.version COLLATE "C" AS version
	FROM unnest($3::text[], $4::text[]) AS w(channel, version)
),` + s.chainSQL() + `
` + s.chainRowsSQL() + `
UNION ALL
SELECT 4, c.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM unnest($5::text[]) AS e(id) CROSS JOIN LATERAL (
	SELECT c.id FROM ` + s.t.checkpoints + ` c
	WHERE c.thread_id = $1 AND c.ns = $2 AND c.id = e.id COLLATE "C"
) c`
}

// pageRead is the state of one page's read: what its statements
// returned, decoded.
type pageRead struct {
	thread, ns string
	in         *interner
	vd         versionsDecoder
	mdbuf      []byte
	data       arena

	tuples   []checkpoint.Tuple
	infos    []rowInfo
	rowErrs  []error // a row's versions or metadata that do not decode
	head     *string
	blobs    map[blobKey]blobRow
	writes   map[string][]checkpoint.PendingWrite
	unsummed map[string]int // writes without a checksum, by checkpoint
	badWrite error
	exists   map[string]bool
}

// read decodes the rows of one of a page's statements.
func (p *pageRead) read(rows pgx.Rows) error {
	defer rows.Close()
	r := newRawRow(rows)
	for r.next() {
		kind, _, err := r.int(colKind)
		if err == nil {
			switch kind {
			case rowCheckpoint:
				err = p.checkpoint(&r)
			case rowHead:
				var h []byte
				if h, err = r.bytes(colA); err == nil && h != nil {
					head := string(h)
					p.head = &head
				}
			case rowBlob:
				err = p.blob(&r)
			case rowWrite:
				err = p.write(&r)
			case rowExists:
				var id []byte
				if id, err = r.bytes(colA); err == nil {
					if p.exists == nil {
						p.exists = map[string]bool{}
					}
					p.exists[string(id)] = true
				}
			default:
				err = fmt.Errorf("row of kind %d", kind)
			}
		}
		if err != nil {
			return err
		}
	}
	return rows.Err()
}

func (p *pageRead) checkpoint(r *rawRow) error {
	idb, err := r.bytes(colA)
	if err != nil {
		return err
	}
	parent, err := r.bytes(colB)
	if err != nil {
		return err
	}
	prev, err := r.bytes(colC)
	if err != nil {
		return err
	}
	created, err := r.time(colT)
	if err != nil {
		return err
	}
	nwrites, hasN, err := r.int(colN)
	if err != nil {
		return err
	}
	crc, hasCRC, err := r.int(colX)
	if err != nil {
		return err
	}
	id := p.in.str(idb)
	info := rowInfo{thread: p.thread, ns: p.ns, id: id, created: created}
	if len(parent) > 0 {
		info.parent = p.in.str(parent)
	}
	if prev != nil {
		info.own.set |= ownPrev
		info.own.prev = p.in.str(prev)
	}
	if hasN {
		info.own.set |= ownNwrites
		info.own.nwrites = int32(nwrites)
	}
	if hasCRC {
		info.own.set |= ownCRC
		info.own.crc = crc
	}
	tup := checkpoint.Tuple{
		Config:     checkpoint.Config{ThreadID: p.thread, Namespace: p.ns, CheckpointID: id},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: created},
	}
	// The versions and metadata, checked against the row's checksum;
	// what fails is reported in order by finish.
	rowErr := func() error {
		versions, err := r.bytes(colJ)
		if err != nil {
			return err
		}
		if tup.Checkpoint.Versions, err = p.vd.decode(versions, id); err != nil {
			return info.corrupt("versions: %v", err)
		}
		if tup.Checkpoint.Versions == nil {
			return info.corrupt("versions: %q is not a JSON object", truncate(versions))
		}
		md, err := r.bytes(colM)
		if err != nil {
			return err
		}
		var canon []byte
		if tup.Metadata, canon, err = decodeMetadata(md, p.in, p.mdbuf[:0]); err != nil {
			return info.corrupt("metadata: %v", err)
		}
		p.mdbuf = canon
		return info.check(tup.Checkpoint.Versions, canon)
	}()
	p.tuples = append(p.tuples, tup)
	p.infos = append(p.infos, info)
	p.rowErrs = append(p.rowErrs, rowErr)
	return nil
}

func (p *pageRead) blob(r *rawRow) error {
	ch, err := r.bytes(colA)
	if err != nil {
		return err
	}
	v, err := r.bytes(colB)
	if err != nil {
		return err
	}
	base, err := r.bytes(colC)
	if err != nil {
		return err
	}
	crc, hasCRC, err := r.int(colX)
	if err != nil {
		return err
	}
	data, err := r.bytes(colD)
	if err != nil {
		return err
	}
	delta, err := r.bool(colF)
	if err != nil {
		return err
	}
	k := blobKey{p.in.str(ch), p.in.str(v)}
	b := blobRow{data: p.data.copy(data), delta: delta, base: p.in.str(base)}
	b.bad = hasCRC && crc != blobChecksum(p.thread, p.ns, k.channel, k.version, b.data, b.delta, b.base)
	if p.blobs == nil {
		p.blobs = make(map[blobKey]blobRow, 2*len(p.tuples))
	}
	p.blobs[k] = b
	return nil
}

func (p *pageRead) write(r *rawRow) error {
	idb, err := r.bytes(colA)
	if err != nil {
		return err
	}
	task, err := r.bytes(colB)
	if err != nil {
		return err
	}
	ch, err := r.bytes(colC)
	if err != nil {
		return err
	}
	idx, _, err := r.int(colN)
	if err != nil {
		return err
	}
	crc, hasCRC, err := r.int(colX)
	if err != nil {
		return err
	}
	value, err := r.bytes(colD)
	if err != nil {
		return err
	}
	id := p.in.str(idb)
	w := checkpoint.PendingWrite{TaskID: p.in.str(task), Index: int(idx), Channel: p.in.str(ch), Value: p.data.copy(value)}
	switch {
	case !hasCRC:
		if p.unsummed == nil {
			p.unsummed = map[string]int{}
		}
		p.unsummed[id]++
	case crc != writeChecksum(p.thread, p.ns, id, w.TaskID, int32(idx), w.Channel, w.Value) && p.badWrite == nil:
		p.badWrite = corruptError(p.thread, p.ns, id, "pending write %d of task %q does not match its checksum", idx, w.TaskID)
	}
	if p.writes == nil {
		p.writes = map[string][]checkpoint.PendingWrite{}
	}
	p.writes[id] = append(p.writes[id], w)
	return nil
}

// arena copies the bytes of a page's rows into shared chunks: one
// allocation for many small values. Each copy is capped, so appending to
// one never writes into the next.
type arena struct{ buf []byte }

// The sizes of an arena's chunks: the first is small (a Get reads a few
// values), each next one twice the one before, up to arenaChunk.
const (
	arenaFirst = 512
	arenaChunk = 32 << 10
)

// copy returns a copy of b; nil for nil, empty for empty.
func (a *arena) copy(b []byte) []byte {
	switch {
	case b == nil:
		return nil
	case len(b) == 0:
		return []byte{}
	case len(b) > arenaChunk/4:
		return slices.Clone(b)
	case len(b) > cap(a.buf)-len(a.buf):
		a.buf = make([]byte, 0, max(arenaFirst, min(2*cap(a.buf), arenaChunk), 2*len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}
