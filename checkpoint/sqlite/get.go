package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// cpRow is a checkpoints row, decoded.
type cpRow struct {
	id, parent string
	created    time.Time
	versions   map[string]string
	md         checkpoint.Metadata
	// prev is the head this checkpoint replaced, nwrites the number of
	// its pending writes; both NULL in a legacy row (written before
	// migration 2), which has no checksum either.
	prev    sql.NullString
	nwrites sql.NullInt64
	legacy  bool
	// rel is set when the versions column is relative to the id
	// (relVersion; rows written since migration 6).
	rel bool
	// inline is the inline column: the values stored in the row (nil for
	// none, and in rows written before migration 5).
	inline []byte
	// skipAll and skipped say which values a read leaves out (List's
	// SkipValue): every channel but the reserved ones, or those in
	// skipped.
	skipAll bool
	skipped []string
}

// reads reports whether a read of r reads the value of channel ch.
func (r *cpRow) reads(ch string) bool {
	if r.skipAll {
		return checkpoint.IsReserved(ch)
	}
	return len(r.skipped) == 0 || !slices.Contains(r.skipped, ch)
}

// nreads is the number of channels whose values a read of r reads.
func (r *cpRow) nreads() int {
	if !r.skipAll && len(r.skipped) == 0 {
		return len(r.versions)
	}
	n := 0
	for ch := range r.versions {
		if r.reads(ch) {
			n++
		}
	}
	return n
}

// askSkips asks skip about each channel of tup, the tuple of r so far,
// that is not reserved, and records what it leaves out in r.
func askSkips(r *cpRow, tup *checkpoint.Tuple, skip func(*checkpoint.Tuple, string) bool) {
	var stack [8]string
	skipped := stack[:0]
	fields := 0
	for ch := range r.versions {
		if checkpoint.IsReserved(ch) {
			continue
		}
		fields++
		if skip(tup, ch) {
			skipped = append(skipped, ch)
		}
	}
	switch {
	case len(skipped) == 0:
	case len(skipped) == fields:
		r.skipAll = true
	default:
		r.skipped = slices.Clone(skipped)
	}
}

// blobKey names a blob within a thread and namespace.
type blobKey struct{ channel, version string }

// blobRow is a blobs row as read.
type blobRow struct {
	delta bool
	base  string
	data  []byte
	bad   bool // the data does not match its checksum
}

// scanCheckpoint scans and decodes a row of checkpointCols that a query
// of one row returned (rowScanner scans List's pages).
func scanCheckpoint(row *sql.Row, thread, ns string) (cpRow, error) {
	var r cpRow
	var versions, md []byte
	var created any
	var crc sql.NullInt64
	var same bool
	if err := row.Scan(&r.id, &r.parent, &created, &versions, &md, &r.prev, &same, &r.nwrites, &crc, &r.inline); err != nil {
		if r.id != "" {
			return r, corruptError(thread, ns, r.id, "%v", err)
		}
		return r, err
	}
	samePrev(&r, same)
	return r, decodeRow(thread, ns, &r, created, versions, md, crc, nil)
}

// samePrev sets r.prev to r.parent when the row said they are the same
// (checkpointCols).
func samePrev(r *cpRow, same bool) {
	if same {
		r.prev = sql.NullString{String: r.parent, Valid: true}
	}
}

// decodeRow checks the row r was scanned from and decodes its columns
// into r.
func decodeRow(thread, ns string, r *cpRow, created any, versions, md []byte, crc sql.NullInt64, in *interner) error {
	if err := checkRow(thread, ns, r, created, versions, md, crc); err != nil {
		return err
	}
	var err error
	if r.created, err = decodeTime(created); err != nil {
		return corruptError(thread, ns, r.id, "%v", err)
	}
	if r.versions, err = decodeVersionsIn(versions, in, r.id, r.rel); err != nil {
		return corruptError(thread, ns, r.id, "%v", err)
	}
	if r.md, err = decodeMetadataIn(md, in); err != nil {
		return corruptError(thread, ns, r.id, "%v", err)
	}
	return nil
}

// Get returns the checkpoint cfg names, or the latest of its thread and
// namespace when cfg.CheckpointID is "", with every channel's value and
// the pending writes saved against it. No such checkpoint is
// checkpoint.ErrNotFound; a row that cannot be read back, or a blob that
// is missing, is checkpoint.ErrCorrupt naming the checkpoint.
func (s *Saver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	thread, ns := cfg.ThreadID, cfg.Namespace
	var tup *checkpoint.Tuple
	err := s.read(ctx, func(tx *sql.Tx) error {
		var row *sql.Row
		if cfg.CheckpointID == "" {
			row = tx.StmtContext(ctx, s.st.getLatest).QueryRowContext(ctx, thread, ns)
		} else {
			byID, err := s.st.getByID.inTx(ctx, &s.st, tx)
			if err != nil {
				return err
			}
			row = byID.QueryRowContext(ctx, thread, ns, cfg.CheckpointID)
		}
		r, err := scanCheckpoint(row, thread, ns)
		if errors.Is(err, sql.ErrNoRows) {
			return notFoundError(cfg)
		}
		if err != nil {
			return err
		}
		tups, err := s.load(ctx, tx, thread, ns, []cpRow{r}, nil)
		if err != nil {
			return err
		}
		tup = tups[0]
		return nil
	})
	if err != nil {
		return nil, wrapRead(ctx, err, "get", cfg)
	}
	return tup, nil
}

// wrapRead adds context to an error of a read, unless it carries it.
func wrapRead(ctx context.Context, err error, op string, cfg checkpoint.Config) error {
	if isOurs(err) {
		return err
	}
	if cfg.CheckpointID != "" {
		err = fmt.Errorf("sqlite: %s thread %q namespace %q checkpoint %q: %w", op, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err)
	} else {
		err = fmt.Errorf("sqlite: %s thread %q namespace %q: %w", op, cfg.ThreadID, cfg.Namespace, err)
	}
	return withCtx(ctx, err)
}

// withCtx makes an error that a cancelled context caused (SQLite reports
// an interrupted statement; database/sql may report a transaction it
// rolled back) wrap the context's error, and one that a damaged file
// caused wrap checkpoint.ErrCorrupt.
func withCtx(ctx context.Context, err error) error {
	err = markCorrupt(err)
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}

// load turns checkpoint rows of one thread and namespace into tuples: it
// fetches the blobs of all of them, delta chains included, in one query
// and their pending writes in another. skip, when set, is List's
// SkipValue: it is asked about the rows in order, before anything else is
// read, and the values it leaves out are not read.
func (s *Saver) load(ctx context.Context, tx *sql.Tx, thread, ns string, rows []cpRow, skip func(*checkpoint.Tuple, string) bool) ([]*checkpoint.Tuple, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	out := make([]*checkpoint.Tuple, len(rows))
	tups := make([]checkpoint.Tuple, len(rows))
	var parents []checkpoint.Config
	for i := range rows {
		r := &rows[i]
		tup := &tups[i]
		*tup = checkpoint.Tuple{
			Config: checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: r.id},
			Checkpoint: checkpoint.Checkpoint{
				ID:        r.id,
				CreatedAt: r.created,
				Versions:  r.versions,
			},
			Metadata: r.md,
		}
		if r.parent != "" {
			if parents == nil {
				parents = make([]checkpoint.Config, len(rows))
			}
			parents[i] = checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: r.parent}
			tup.Parent = &parents[i]
		}
		if skip != nil {
			askSkips(r, tup, skip)
		}
		out[i] = tup
	}
	blobs, err := s.loadBlobs(ctx, tx, thread, ns, rows)
	if err != nil {
		return nil, err
	}
	writes, err := s.loadWrites(ctx, tx, thread, ns, rows)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		if r.nwrites.Valid && int64(len(writes[r.id])) != r.nwrites.Int64 {
			return nil, corruptError(thread, ns, r.id, "%d pending writes stored, %d found", r.nwrites.Int64, len(writes[r.id]))
		}
		values := make(map[string]checkpoint.Value, r.nreads())
		for ch, v := range r.versions {
			if !r.reads(ch) {
				continue
			}
			val, err := rebuild(blobs, ch, v)
			if err != nil {
				// The row's damage, when that is why; a failure to look
				// (ctx ended) leaves the damage found.
				if cause := whyMissing(ctx, tx, thread, ns, err); errors.Is(cause, checkpoint.ErrCorrupt) {
					return nil, cause
				}
				return nil, corruptError(thread, ns, r.id, "channel %q version %q: %v", ch, v, err)
			}
			values[ch] = val
		}
		out[i].Checkpoint.Values = values
		out[i].PendingWrites = writes[r.id]
	}
	return out, nil
}

// loadWrites fetches the pending writes of the rows, by checkpoint id,
// ordered by task id then index.
func (s *Saver) loadWrites(ctx context.Context, tx *sql.Tx, thread, ns string, rows []cpRow) (map[string][]checkpoint.PendingWrite, error) {
	// A row that counts no writes has none to look for; a legacy row
	// does not count them.
	var ids []string
	for i := range rows {
		if r := &rows[i]; !r.nwrites.Valid || r.nwrites.Int64 != 0 {
			ids = append(ids, r.id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rs *sql.Rows
	var err error
	if len(ids) == 1 {
		rs, err = tx.StmtContext(ctx, s.st.writesOne).QueryContext(ctx, thread, ns, ids[0])
	} else {
		var page *sql.Stmt
		if page, err = s.st.writesPage.inTx(ctx, &s.st, tx); err != nil {
			return nil, err
		}
		rs, err = page.QueryContext(ctx, thread, ns, idsJSON(ids))
	}
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := make(map[string][]checkpoint.PendingWrite)
	for rs.Next() {
		var id string
		var w checkpoint.PendingWrite
		var crc int64
		if err := rs.Scan(&id, &w.TaskID, &w.Index, &w.Channel, &crc, &w.Value); err != nil {
			return nil, corruptError(thread, ns, id, "pending write of task %q: %v", w.TaskID, err)
		}
		if !writeChecksumOK(crc, thread, ns, id, w.TaskID, int64(w.Index), w.Channel, w.Value) {
			return nil, corruptError(thread, ns, id, "pending write %d of task %q does not match its checksum", w.Index, w.TaskID)
		}
		out[id] = append(out[id], w)
	}
	return out, rs.Err()
}

// rebuild returns the value of channel ch at version v: the newest full
// snapshot at or behind v and the deltas after it, oldest first. A delta
// with no base extends the empty value.
func rebuild(blobs map[blobKey]blobRow, ch, v string) (checkpoint.Value, error) {
	out := checkpoint.Value{Version: v}
	cur := v
	for n := 0; ; n++ {
		if n > len(blobs) {
			return out, fmt.Errorf("the delta chain loops at version %q", cur)
		}
		b, ok := blobs[blobKey{ch, cur}]
		if !ok {
			return out, &missingBlob{version: cur, base: cur != v}
		}
		if b.bad {
			return out, fmt.Errorf("blob of version %q cannot be read or does not match its checksum", cur)
		}
		if !b.delta {
			out.Snapshot = b.data
			break
		}
		out.Deltas = append(out.Deltas, b.data)
		if b.base == "" {
			break
		}
		cur = b.base
	}
	slices.Reverse(out.Deltas)
	return out, nil
}
