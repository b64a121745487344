package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// pageSize is how many checkpoints List reads per round trip.
const pageSize = 100

// Get returns the checkpoint cfg names, or the newest of its thread and
// namespace when cfg.CheckpointID is "", with Values rebuilt for every
// channel in Versions and its pending writes. It costs one round trip.
func (s *Saver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	page, _, err := s.page(ctx, cfg, pageFilter{id: cfg.CheckpointID, limit: 1})
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
// (checkpoint.HeadGetter): the same one round trip, whose blob query
// reads the reserved channels' blobs (the schedule's) alone.
func (s *Saver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	page, _, err := s.page(ctx, cfg, pageFilter{id: cfg.CheckpointID, limit: 1, head: true})
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
// one round trip (one snapshot), so there is no query per checkpoint. The
// metadata filter runs in the database as JSONB containment.
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
		var newer *rowInfo
		for {
			f.limit = pageSize
			if remaining > 0 && remaining < f.limit {
				f.limit = remaining
			}
			page, infos, err := s.page(ctx, cfg, f)
			if err == nil && chained {
				err = walkLinks(&newer, infos, len(page) < f.limit, func(n, o *rowInfo) error { return s.relink(ctx, n, o) })
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
			if len(page) < f.limit || f.id != "" {
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
// writes, in one round trip and one snapshot: the three queries (and,
// for a page that starts at the head, the head) run in a read-only
// repeatable-read transaction sent as one batch. Every row is checked
// against its checksum, and each checkpoint's writes against its count.
// It returns the rows' integrity columns too, for List's chain check.
func (s *Saver) page(ctx context.Context, cfg checkpoint.Config, f pageFilter) ([]*checkpoint.Tuple, []rowInfo, error) {
	if !readable(cfg, f.before) {
		return nil, nil, nil // no stored row has such a key
	}
	pageSQL, blobsSQL, writesSQL, args := s.pageQueries(cfg, f)
	var (
		tuples   []*checkpoint.Tuple
		infos    []rowInfo
		raw      [][2][]byte // versions and metadata of each tuple
		blobs    = map[blobKey]blobRow{}
		writes   = map[string][]checkpoint.PendingWrite{}
		unsummed = map[string]int{} // writes without a checksum, by checkpoint
		badWrite error
		head     *string
	)
	thread, ns := cfg.ThreadID, cfg.Namespace
	fromHead := f.id == "" && f.before == "" && f.contains == ""
	batch := &pgx.Batch{}
	batch.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	if fromHead {
		batch.Queue(s.q.head, thread, ns).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&head); err != nil {
					return err
				}
			}
			return rows.Err()
		})
	}
	batch.Queue(pageSQL, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var (
				id       string
				parent   *string
				versions []byte
				md       []byte
				info     = rowInfo{thread: thread, ns: ns}
			)
			if err := rows.Scan(&id, &parent, &info.created, &versions, &md, &info.prev, &info.nwrites, &info.crc); err != nil {
				return err
			}
			info.id = id
			tup := &checkpoint.Tuple{
				Config:     checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: id},
				Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: info.created},
			}
			if parent != nil && *parent != "" {
				info.parent = *parent
				tup.Parent = &checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: *parent}
			}
			tuples = append(tuples, tup)
			infos = append(infos, info)
			raw = append(raw, [2][]byte{versions, md})
		}
		return rows.Err()
	})
	batch.Queue(blobsSQL, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var k blobKey
			var b blobRow
			var crc *int64
			if err := rows.Scan(&k.channel, &k.version, &b.data, &b.delta, &b.base, &crc); err != nil {
				return err
			}
			b.bad = crc != nil && *crc != blobChecksum(thread, ns, k.channel, k.version, b.data, b.delta, b.base)
			blobs[k] = b
		}
		return rows.Err()
	})
	batch.Queue(writesSQL, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id string
			var w checkpoint.PendingWrite
			var idx int32
			var crc *int64
			if err := rows.Scan(&id, &w.TaskID, &idx, &w.Channel, &w.Value, &crc); err != nil {
				return err
			}
			w.Index = int(idx)
			switch {
			case crc == nil:
				unsummed[id]++
			case *crc != writeChecksum(thread, ns, id, w.TaskID, idx, w.Channel, w.Value) && badWrite == nil:
				badWrite = corruptError(thread, ns, id, "pending write %d of task %q does not match its checksum", idx, w.TaskID)
			}
			writes[id] = append(writes[id], w)
		}
		return rows.Err()
	})
	batch.Queue("COMMIT")
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		if f.id != "" {
			return nil, nil, fmt.Errorf("postgres: read thread %q ns %q checkpoint %q: %w", thread, ns, f.id, err)
		}
		return nil, nil, fmt.Errorf("postgres: read thread %q ns %q: %w", thread, ns, err)
	}
	if badWrite != nil {
		return nil, nil, badWrite
	}
	if fromHead {
		switch {
		case head == nil && len(tuples) > 0:
			return nil, nil, infos[0].corrupt("the namespace has checkpoints but no head")
		case head != nil && len(tuples) == 0:
			return nil, nil, corruptError(thread, ns, *head, "the head names it, but it is missing")
		case head != nil && *head != tuples[0].Checkpoint.ID:
			return nil, nil, corruptError(thread, ns, *head, "the head names it, but the newest checkpoint is %q", tuples[0].Checkpoint.ID)
		}
	}

	for i, tup := range tuples {
		cp := &tup.Checkpoint
		info := &infos[i]
		if err := json.Unmarshal(raw[i][0], &cp.Versions); err != nil {
			return nil, nil, info.corrupt("versions: %v", err)
		}
		if cp.Versions == nil {
			return nil, nil, info.corrupt("versions: %q is not a JSON object", truncate(raw[i][0]))
		}
		if m := bytes.TrimSpace(raw[i][1]); len(m) == 0 || m[0] != '{' {
			return nil, nil, info.corrupt("metadata: %q is not a JSON object", truncate(raw[i][1]))
		}
		if err := json.Unmarshal(raw[i][1], &tup.Metadata); err != nil {
			return nil, nil, info.corrupt("metadata: %v", err)
		}
		if err := info.check(cp.Versions, tup.Metadata); err != nil {
			return nil, nil, err
		}
		if !info.legacy() {
			if n := len(writes[cp.ID]); int64(n) != int64(*info.nwrites) {
				return nil, nil, info.corrupt("%d pending writes stored, %d found", *info.nwrites, n)
			}
			if unsummed[cp.ID] > 0 {
				return nil, nil, info.corrupt("%d pending writes have no checksum", unsummed[cp.ID])
			}
		}
		cp.Values = make(map[string]checkpoint.Value, len(cp.Versions))
		for ch, v := range cp.Versions {
			if f.head && !checkpoint.IsReserved(ch) {
				continue
			}
			val, err := rebuild(blobs, ch, v)
			if err != nil {
				return nil, nil, info.corrupt("%v", err)
			}
			cp.Values[ch] = val
		}
		tup.PendingWrites = writes[cp.ID]
	}
	return tuples, infos, nil
}

// pageQueries returns the three queries of a page — its checkpoints,
// their blobs with the delta chains behind them, and their pending
// writes — and their shared arguments.
func (s *Saver) pageQueries(cfg checkpoint.Config, f pageFilter) (pageSQL, blobsSQL, writesSQL string, args []any) {
	where, args := f.sql(cfg)
	t := s.t
	headOnly := ""
	if f.head {
		headOnly = `
	WHERE length(v.key) > 4 AND left(v.key, 2) = '__' AND right(v.key, 2) = '__'`
	}
	pageSQL = `SELECT id, parent_id, created_at, versions, metadata, prev, nwrites, crc FROM ` + t.checkpoints + where
	// The blob lookups are LATERAL primary-key probes (LIMIT 1 keeps the
	// planner from flattening them into joins), so even a generic plan
	// that guesses one row per thread walks the index rather than
	// scanning the thread's blobs once per step of a delta chain.
	blobsSQL = `WITH RECURSIVE page AS (SELECT versions FROM ` + t.checkpoints + where + `),
want AS (
	SELECT DISTINCT v.key COLLATE "C" AS channel, v.value COLLATE "C" AS version
	FROM page, jsonb_each_text(CASE WHEN jsonb_typeof(page.versions) = 'object' THEN page.versions ELSE '{}'::jsonb END) AS v` + headOnly + `
),
chain (channel, version, delta, base) AS (
	SELECT b.channel, b.version, b.delta, b.base
	FROM want w CROSS JOIN LATERAL (
		SELECT b.channel, b.version, b.delta, b.base FROM ` + t.blobs + ` b
		WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = w.channel AND b.version = w.version
		LIMIT 1
	) b
	UNION
	SELECT b.channel, b.version, b.delta, b.base
	FROM chain c CROSS JOIN LATERAL (
		SELECT b.channel, b.version, b.delta, b.base FROM ` + t.blobs + ` b
		WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = c.channel AND b.version = c.base
		LIMIT 1
	) b
	WHERE c.delta AND c.base <> ''
)
SELECT b.channel, b.version, b.data, b.delta, b.base, b.crc
FROM chain c CROSS JOIN LATERAL (
	SELECT b.channel, b.version, b.data, b.delta, b.base, b.crc FROM ` + t.blobs + ` b
	WHERE b.thread_id = $1 AND b.ns = $2 AND b.channel = c.channel AND b.version = c.version
	LIMIT 1
) b`
	writesSQL = `WITH page AS (SELECT id FROM ` + t.checkpoints + where + `)
SELECT p.id, w.task_id, w.idx, w.channel, w.value, w.crc
FROM page p CROSS JOIN LATERAL (
	SELECT w.task_id, w.idx, w.channel, w.value, w.crc FROM ` + t.writes + ` w
	WHERE w.thread_id = $1 AND w.ns = $2 AND w.checkpoint_id = p.id
	OFFSET 0
) w
ORDER BY p.id, w.task_id, w.idx`
	return pageSQL, blobsSQL, writesSQL, args
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
