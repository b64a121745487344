package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// Get returns the checkpoint cfg names, or the newest of its thread and
// namespace when cfg.CheckpointID is "", with Values rebuilt for every
// channel in Versions and its pending writes. It costs one round trip.
func (s *Saver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	page, _, _, err := s.page(ctx, cfg, pageFilter{id: cfg.CheckpointID, limit: 1}, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(page) == 0 {
		if cfg.CheckpointID == "" {
			return nil, fmt.Errorf("postgres: get thread %q ns %q: no checkpoint: %w", cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
		}
		return nil, fmt.Errorf("postgres: get thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
	}
	return page[0], nil
}

// GetHead is Get without the values of the state's fields
// (checkpoint.HeadGetter): one round trip that reads the checkpoint row,
// the head, its pending writes and its schedule's blob by primary key
// (a reserved channel other than the schedule, or a schedule stored as a
// delta, takes a second).
func (s *Saver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	page, _, _, err := s.page(ctx, cfg, pageFilter{id: cfg.CheckpointID, limit: 1, head: true}, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(page) == 0 {
		if cfg.CheckpointID == "" {
			return nil, fmt.Errorf("postgres: get head thread %q ns %q: no checkpoint: %w", cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
		}
		return nil, fmt.Errorf("postgres: get head thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
	}
	return page[0], nil
}

// List yields the checkpoints of cfg's thread and namespace, newest first.
// It reads them a page at a time, each page with its blobs and writes in
// one round trip (one snapshot), so there is no query per checkpoint: the
// first page is one checkpoint, and each after it sixteen times the one
// before, up to 1,024. The metadata filter runs in the database as JSONB
// containment. With opts.SkipValue, a page reads the blobs of the values
// it does not skip in a second round trip, and none when it skips them
// all.
func (s *Saver) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return func(yield func(*checkpoint.Tuple, error) bool) {
		f, err := newPageFilter(opts.Filter)
		if err != nil {
			yield(nil, fmt.Errorf("postgres: list thread %q ns %q: %w", cfg.ThreadID, cfg.Namespace, err))
			return
		}
		f.id = cfg.CheckpointID
		f.before = opts.Before
		remaining := opts.Limit
		// A walk of every checkpoint (no filter, not one id) checks that
		// each names the next older one as the head it replaced, and that
		// the oldest names none: a missing row is ErrCorrupt.
		chained := f.contains == "" && f.id == ""
		var (
			newer *rowInfo
			in    interner
			size  int
		)
		relink := func(n, o *rowInfo) error { return s.relink(ctx, n, o) }
		// Any other walk of the history (a filter, a limit that ends
		// it, a Before cursor) verifies the links of what it returns
		// (span.go).
		sp := span{top: opts.Before}
		for {
			size = nextPage(size)
			f.limit = size
			if remaining > 0 && remaining < f.limit {
				f.limit = remaining
			}
			page, infos, cut, err := s.page(ctx, cfg, f, opts.SkipValue, &in)
			if err == nil && chained {
				err = walkLinks(&newer, infos, !cut && len(page) < f.limit, relink)
				if err == nil && cut && newer != nil {
					// The history was pruned or deleted under the page:
					// the walk ends where it is now.
					err = s.relink(ctx, newer, nil)
				}
			}
			limited := remaining > 0 && len(page) >= remaining
			if err == nil && f.id == "" && (!chained || limited || opts.Before != "") {
				// Down to the oldest row returned, or, once the walk
				// has read the last row, to the oldest row.
				bottom, end := "", !limited && !cut && len(page) < f.limit
				if len(page) > 0 && !end {
					bottom = page[len(page)-1].Checkpoint.ID
				}
				if len(page) > 0 || end {
					err = s.checkSpan(ctx, cfg.ThreadID, cfg.Namespace, &sp, bottom)
				}
			}
			if err != nil {
				yield(nil, err)
				return
			}
			for _, tup := range page {
				if !yield(tup, nil) {
					return
				}
			}
			if remaining > 0 {
				remaining -= len(page)
				if remaining <= 0 {
					return
				}
			}
			if cut || len(page) < f.limit || f.id != "" {
				return
			}
			f.before = page[len(page)-1].Checkpoint.ID
		}
	}
}

// walkLinks checks the links of a page of a walk, after newer, the last
// row of the page before; end is set when nothing older follows. A link
// that fails across the pages is checked again by relink.
func walkLinks(newer **rowInfo, infos []rowInfo, end bool, relink func(newer, older *rowInfo) error) error {
	for i := range infos {
		if *newer != nil {
			err := checkLink(*newer, &infos[i])
			if err != nil && i == 0 {
				err = relink(*newer, &infos[i])
			}
			if err != nil {
				return err
			}
		}
		*newer = &infos[i]
	}
	if end && *newer != nil {
		err := checkLink(*newer, nil)
		if err != nil && len(infos) == 0 {
			err = relink(*newer, nil)
		}
		return err
	}
	return nil
}

// relink checks again a link that failed between newer, read by the page
// before, and older: a Prune or DeleteThread that committed between the
// two pages changes the history under the walk. newer gone is no damage;
// newer's prev changed (Prune made it the oldest) is checked as it is
// now.
func (s *Saver) relink(ctx context.Context, newer, older *rowInfo) error {
	var prev *string
	err := s.pool.QueryRow(ctx, `SELECT prev FROM `+s.t.checkpoints+` WHERE thread_id = $1 AND ns = $2 AND id = $3`,
		newer.thread, newer.ns, newer.id).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("postgres: read thread %q ns %q: %w", newer.thread, newer.ns, err)
	}
	now := *newer
	now.prev = prev
	return checkLink(&now, older)
}

// pageFilter selects a page of checkpoints of one thread and namespace.
type pageFilter struct {
	id       string // only this checkpoint
	before   string // only checkpoints older than this id
	contains string // JSON object the filter column must contain
	equal    [][2]string
	limit    int
	// head reads the values of the reserved channels alone
	// (checkpoint.IsReserved; GetHead).
	head bool
}

// newPageFilter turns a ListOptions.Filter into conditions on the filter
// column, which holds checkpoint.Metadata.Flatten. Every key goes into one
// containment test (served by the GIN index); since containment of arrays
// and objects is looser than equality, keys with such values also get an
// equality test, so the result is exactly checkpoint.Metadata.Matches.
func newPageFilter(filter map[string]any) (pageFilter, error) {
	var f pageFilter
	if len(filter) == 0 {
		return f, nil
	}
	raw, err := json.Marshal(filter)
	if err != nil {
		return f, fmt.Errorf("filter: %w", err)
	}
	var norm map[string]any
	if err := json.Unmarshal(raw, &norm); err != nil {
		return f, fmt.Errorf("filter: %w", err)
	}
	// Marshal the JSON round trip again: numbers as float64, as Flatten
	// stores them.
	raw, err = json.Marshal(norm)
	if err != nil {
		return f, fmt.Errorf("filter: %w", err)
	}
	f.contains = string(raw)
	for k, v := range norm {
		switch v.(type) {
		case map[string]any, []any:
			b, err := json.Marshal(v)
			if err != nil {
				return f, fmt.Errorf("filter %q: %w", k, err)
			}
			f.equal = append(f.equal, [2]string{k, string(b)})
		}
	}
	return f, nil
}

// sql returns the page query's WHERE and ORDER BY clauses and arguments,
// numbering its parameters from $1 (thread) and $2 (namespace).
func (f pageFilter) sql(cfg checkpoint.Config) (string, []any) {
	args := []any{cfg.ThreadID, cfg.Namespace}
	var b strings.Builder
	b.WriteString(" WHERE thread_id = $1 AND ns = $2")
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.id != "" {
		b.WriteString(" AND id = " + arg(f.id) + "::text")
	}
	if f.before != "" {
		b.WriteString(" AND id < " + arg(f.before) + "::text")
	}
	if f.contains != "" {
		b.WriteString(" AND filter @> " + arg(f.contains) + "::jsonb")
	}
	for _, kv := range f.equal {
		b.WriteString(" AND filter -> " + arg(kv[0]) + "::text = " + arg(kv[1]) + "::jsonb")
	}
	b.WriteString(" ORDER BY id DESC LIMIT " + arg(f.limit) + "::integer")
	return b.String(), args
}

// blobKey names a stored blob of a thread and namespace.
type blobKey struct{ channel, version string }

// blobRow is a stored blob.
type blobRow struct {
	data  []byte
	delta bool
	base  string
	bad   bool // the row does not match its checksum
}

// page reads the checkpoints f selects, with their blobs and pending
// writes. Its first statement reads the checkpoints, their pending
// writes, the blobs of their values with the delta chains behind them
// and, for a page that starts at the head, the head: one round trip and
// one snapshot. Every row is checked against its checksum, and each
// checkpoint's writes against its count. It returns the rows' integrity
// columns too, for List's chain check.
//
// With skip (checkpoint.ListOptions.SkipValue) the first statement reads
// the reserved channels' blobs alone; skip is asked, checkpoint by
// checkpoint in order, about each other channel, and a second statement
// reads the blobs of those it did not skip (none when it skipped them
// all), with whether their checkpoints are still stored. The second
// statement also follows a delta chain the first left with a gap (one
// longer than windowSQL's window, or a gap that is damage, which it then
// fails to find). Blobs do not
// change once stored, so that read gives what the first one's snapshot
// held, unless a Prune or DeleteThread deleted a checkpoint in between:
// then the page ends before the first such checkpoint and cut is set
// (nothing older follows). in makes the strings of the rows (nil: a new
// interner).
func (s *Saver) page(ctx context.Context, cfg checkpoint.Config, f pageFilter, skip func(*checkpoint.Tuple, string) bool, in *interner) (tuples []*checkpoint.Tuple, infos []rowInfo, cut bool, err error) {
	if !readable(cfg, f.before) {
		return nil, nil, false, nil // no stored row has such a key
	}
	if in == nil {
		in = &interner{}
	}
	thread, ns := cfg.ThreadID, cfg.Namespace
	fail := func(err error) error {
		if f.id != "" {
			return fmt.Errorf("postgres: read thread %q ns %q checkpoint %q: %w", thread, ns, f.id, err)
		}
		return fmt.Errorf("postgres: read thread %q ns %q: %w", thread, ns, err)
	}
	fromHead := f.id == "" && f.before == "" && f.contains == ""
	scope := blobsAll
	if f.head || skip != nil {
		scope = blobsSchedule
	}
	sql, args := s.pageSQL(cfg, f, scope, fromHead)
	p := &pageRead{
		thread: thread, ns: ns, in: in, vd: versionsDecoder{in: in},
		tuples: make([]checkpoint.Tuple, 0, f.limit), infos: make([]rowInfo, 0, f.limit), rowErrs: make([]error, 0, f.limit),
	}
	if err := p.query(ctx, s, sql, args...); err != nil {
		return nil, nil, false, fail(err)
	}
	if p.badWrite != nil {
		return nil, nil, false, p.badWrite
	}
	if !slices.IsSortedFunc(p.tuples, func(a, b checkpoint.Tuple) int { return strings.Compare(b.Checkpoint.ID, a.Checkpoint.ID) }) {
		sort.Sort(byIDDesc{p})
	}
	if fromHead {
		switch {
		case p.head == nil && len(p.tuples) > 0:
			return nil, nil, false, p.infos[0].corrupt("the namespace has checkpoints but no head")
		case p.head != nil && len(p.tuples) == 0:
			return nil, nil, false, corruptError(thread, ns, *p.head, "the head names it, but it is missing")
		case p.head != nil && *p.head != p.tuples[0].Checkpoint.ID:
			return nil, nil, false, corruptError(thread, ns, *p.head, "the head names it, but the newest checkpoint is %q", p.tuples[0].Checkpoint.ID)
		}
	}

	n := len(p.tuples)
	tuples = make([]*checkpoint.Tuple, n)
	parents := make([]checkpoint.Config, 0, n)
	for i := range p.tuples {
		tup, info := &p.tuples[i], &p.infos[i]
		info.link()
		if err := p.rowErrs[i]; err != nil {
			return nil, nil, false, err
		}
		ws := p.writes[tup.Checkpoint.ID]
		if !info.legacy() {
			if got := len(ws); int64(got) != int64(*info.nwrites) {
				return nil, nil, false, info.corrupt("%d pending writes stored, %d found", *info.nwrites, got)
			}
			if u := p.unsummed[tup.Checkpoint.ID]; u > 0 {
				return nil, nil, false, info.corrupt("%d pending writes have no checksum", u)
			}
		}
		if info.parent != "" {
			parents = append(parents, checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: info.parent})
			tup.Parent = &parents[len(parents)-1]
		}
		if len(ws) > 1 {
			slices.SortFunc(ws, func(a, b checkpoint.PendingWrite) int {
				if c := strings.Compare(a.TaskID, b.TaskID); c != 0 {
					return c
				}
				return a.Index - b.Index
			})
		}
		tup.PendingWrites = ws
		tuples[i] = tup
	}

	// The values to read: every channel's, but those skip skips (or, for
	// GetHead, every field's).
	var want valuesWanted
	var keep [16]string
	for i, tup := range tuples {
		chans := keep[:0]
		for ch := range tup.Checkpoint.Versions {
			reserved := checkpoint.IsReserved(ch)
			if reserved || (!f.head && (skip == nil || !skip(tup, ch))) {
				chans = append(chans, ch)
			}
		}
		vals := make(map[string]checkpoint.Value, len(chans))
		for _, ch := range chans {
			v := tup.Checkpoint.Versions[ch]
			vals[ch] = checkpoint.Value{Version: v}
			if k, gap := chainGap(p.blobs, ch, v); gap {
				want.add(i, tup.Checkpoint.ID, k.channel, k.version)
			}
		}
		tup.Checkpoint.Values = vals
	}
	if len(want.channels) > 0 {
		args := []any{thread, ns, want.channels, want.versions, want.ids}
		if err := p.query(ctx, s, s.q.values, args...); err != nil {
			return nil, nil, false, fail(err)
		}
		for i, tup := range tuples {
			if want.of[i] && !p.exists[tup.Checkpoint.ID] {
				tuples, infos, cut = tuples[:i], p.infos[:i], true
				break
			}
		}
	}
	for i, tup := range tuples {
		for ch, v := range tup.Checkpoint.Values {
			val, err := rebuild(p.blobs, ch, v.Version)
			if err != nil {
				return nil, nil, false, p.infos[i].corrupt("%v", err)
			}
			tup.Checkpoint.Values[ch] = val
		}
	}
	if !cut {
		infos = p.infos
	}
	return tuples, infos, cut, nil
}

// query runs one of a page's statements and decodes its rows.
func (p *pageRead) query(ctx context.Context, s *Saver, sql string, args ...any) error {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	return p.read(rows)
}

// valuesWanted lists the blobs a page reads in its second statement.
type valuesWanted struct {
	channels, versions []string
	ids                []string     // the checkpoints that want them
	of                 map[int]bool // the indices in the page of those checkpoints
	seen               map[blobKey]bool
}

func (w *valuesWanted) add(i int, id, ch, v string) {
	if w.of == nil {
		w.of, w.seen = map[int]bool{}, map[blobKey]bool{}
	}
	if !w.of[i] {
		w.of[i] = true
		w.ids = append(w.ids, id)
	}
	if k := (blobKey{ch, v}); !w.seen[k] {
		w.seen[k] = true
		w.channels = append(w.channels, ch)
		w.versions = append(w.versions, v)
	}
}

// byIDDesc sorts a page's rows newest first, should the database return
// them in another order.
type byIDDesc struct{ p *pageRead }

// Len is the number of rows of the page.
func (b byIDDesc) Len() int { return len(b.p.tuples) }

// Less reports whether row i is newer than row j.
func (b byIDDesc) Less(i, j int) bool {
	return b.p.tuples[i].Checkpoint.ID > b.p.tuples[j].Checkpoint.ID
}

// Swap swaps rows i and j with what the page read beside them.
func (b byIDDesc) Swap(i, j int) {
	p := b.p
	p.tuples[i], p.tuples[j] = p.tuples[j], p.tuples[i]
	p.infos[i], p.infos[j] = p.infos[j], p.infos[i]
	p.rowErrs[i], p.rowErrs[j] = p.rowErrs[j], p.rowErrs[i]
}

// rebuild returns the value of channel ch at version: the newest full
// snapshot at or before it, and the deltas after that snapshot, oldest
// first. A delta with an empty base extends the empty value: a chain that
// ends in one has no snapshot.
func rebuild(blobs map[blobKey]blobRow, ch, version string) (checkpoint.Value, error) {
	var deltas [][]byte
	v := version
	for range len(blobs) + 1 {
		b, ok := blobs[blobKey{ch, v}]
		if !ok {
			if v == version {
				return checkpoint.Value{}, fmt.Errorf("channel %q version %q: blob missing", ch, v)
			}
			return checkpoint.Value{}, fmt.Errorf("channel %q version %q: base version %q of its delta chain missing", ch, version, v)
		}
		if b.bad {
			return checkpoint.Value{}, fmt.Errorf("channel %q version %q: the blob of version %q does not match its checksum", ch, version, v)
		}
		if !b.delta {
			slices.Reverse(deltas)
			return checkpoint.Value{Version: version, Snapshot: b.data, Deltas: deltas}, nil
		}
		deltas = append(deltas, b.data)
		if b.base == "" { // a delta of the empty value
			slices.Reverse(deltas)
			return checkpoint.Value{Version: version, Deltas: deltas}, nil
		}
		v = b.base
	}
	return checkpoint.Value{}, fmt.Errorf("channel %q version %q: delta chain has a cycle", ch, version)
}

// truncate shortens b for an error message.
func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
