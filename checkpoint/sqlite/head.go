package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/stategraph/stategraph/checkpoint"
)

// GetHead is Get without the values of the state's fields
// (checkpoint.HeadGetter): the checkpoint's row and its pending writes,
// and the blobs of the reserved channels (the schedule), which are in the
// row itself when the checkpoint stored them (inline.go) and otherwise
// one small read more.
//
// The common head — no pending writes, its schedule stored with it — is
// read with one statement outside a transaction (a statement sees one
// snapshot); any other takes the transaction Get takes.
func (s *Saver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	thread, ns := cfg.ThreadID, cfg.Namespace
	r, err := s.headRow(ctx, cfg)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, wrapRead(ctx, notFoundError(cfg), "get head", cfg)
	case err != nil:
		return nil, wrapRead(ctx, err, "get head", cfg)
	}
	if tup, ok := headOfRow(thread, ns, &r); ok {
		return tup, nil
	}
	var tup *checkpoint.Tuple
	var byID *sql.Stmt
	if cfg.CheckpointID != "" {
		if byID, err = s.st.getByID.get(ctx, &s.st, s.rdb); err != nil {
			return nil, err
		}
	}
	err = s.read(ctx, func(tx *sql.Tx) error {
		var row *sql.Row
		if cfg.CheckpointID == "" {
			row = tx.StmtContext(ctx, s.st.getLatest).QueryRowContext(ctx, thread, ns)
		} else {
			row = tx.StmtContext(ctx, byID).QueryRowContext(ctx, thread, ns, cfg.CheckpointID)
		}
		r, err := scanCheckpoint(row, thread, ns)
		if errors.Is(err, sql.ErrNoRows) {
			return notFoundError(cfg)
		}
		if err != nil {
			return err
		}
		r.skipAll = true // the schedule alone
		tups, err := s.load(ctx, tx, thread, ns, []cpRow{r}, nil)
		if err != nil {
			return err
		}
		tup = tups[0]
		return nil
	})
	if err != nil {
		return nil, wrapRead(ctx, err, "get head", cfg)
	}
	return tup, nil
}

// headOfRow returns the head of the checkpoint of row r when the row holds
// all of it: it has no pending writes (and is not a legacy row, whose
// count is unknown) and the values of its reserved channels are in its
// inline column. Otherwise it reports false.
func headOfRow(thread, ns string, r *cpRow) (*checkpoint.Tuple, bool) {
	if r.legacy || !r.nwrites.Valid || r.nwrites.Int64 != 0 {
		return nil, false
	}
	values := make(map[string]checkpoint.Value, 1)
	for ch, v := range r.versions {
		if !checkpoint.IsReserved(ch) {
			continue
		}
		val, ok := inlineValue(r, ch, v)
		if !ok {
			return nil, false // elsewhere, missing or damaged: read as Get reads
		}
		values[ch] = val
	}
	tup := &checkpoint.Tuple{
		Config: checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: r.id},
		Checkpoint: checkpoint.Checkpoint{
			ID:        r.id,
			CreatedAt: r.created,
			Versions:  r.versions,
			Values:    values,
		},
		Metadata: r.md,
	}
	if r.parent != "" {
		tup.Parent = &checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: r.parent}
	}
	return tup, true
}

// inlineValue returns the value of channel ch at version v when it is a
// snapshot in r's own inline column.
func inlineValue(r *cpRow, ch, v string) (checkpoint.Value, bool) {
	if versionOwner(v) != r.id {
		return checkpoint.Value{}, false
	}
	b, ok, err := findInline(r.inline, r.id, ch, v)
	if err != nil || !ok || b.delta || b.bad {
		return checkpoint.Value{}, false
	}
	return checkpoint.Value{Version: v, Snapshot: b.data}, true
}

// headRow reads the row of the checkpoint cfg names (the latest when
// cfg.CheckpointID is "") with one statement; none is sql.ErrNoRows.
func (s *Saver) headRow(ctx context.Context, cfg checkpoint.Config) (cpRow, error) {
	var rs *sql.Rows
	var err error
	if cfg.CheckpointID == "" {
		rs, err = s.st.getLatest.QueryContext(ctx, cfg.ThreadID, cfg.Namespace)
	} else {
		var byID *sql.Stmt
		if byID, err = s.st.getByID.get(ctx, &s.st, s.rdb); err != nil {
			return cpRow{}, err
		}
		rs, err = byID.QueryContext(ctx, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID)
	}
	if err != nil {
		return cpRow{}, err
	}
	defer rs.Close()
	if !rs.Next() {
		if err := rs.Err(); err != nil {
			return cpRow{}, err
		}
		return cpRow{}, sql.ErrNoRows
	}
	var sc rowScanner
	sc.init(cfg.ThreadID, cfg.Namespace)
	r, err := sc.scan(rs)
	if err != nil {
		return r, err
	}
	return r, rs.Close()
}
