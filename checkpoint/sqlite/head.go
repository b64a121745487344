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
	var row *sql.Row
	if cfg.CheckpointID == "" {
		row = s.st.getLatest.QueryRowContext(ctx, thread, ns)
	} else {
		row = s.st.getByID.QueryRowContext(ctx, thread, ns, cfg.CheckpointID)
	}
	r, err := scanCheckpoint(row.Scan, thread, ns, nil)
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
	err = s.read(ctx, func(tx *sql.Tx) error {
		var row *sql.Row
		if cfg.CheckpointID == "" {
			row = tx.StmtContext(ctx, s.st.getLatest).QueryRowContext(ctx, thread, ns)
		} else {
			row = tx.StmtContext(ctx, s.st.getByID).QueryRowContext(ctx, thread, ns, cfg.CheckpointID)
		}
		r, err := scanCheckpoint(row.Scan, thread, ns, nil)
		if errors.Is(err, sql.ErrNoRows) {
			return notFoundError(cfg)
		}
		if err != nil {
			return err
		}
		// load reads the values of the versions it is given: give it the
		// reserved channels' alone, and put the whole map back on the
		// tuple.
		all := r.versions
		r.versions = make(map[string]string, 2)
		for ch, v := range all {
			if checkpoint.IsReserved(ch) {
				r.versions[ch] = v
			}
		}
		tups, err := s.load(ctx, tx, thread, ns, []cpRow{r})
		if err != nil {
			return err
		}
		tup = tups[0]
		tup.Checkpoint.Versions = all
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
	var blobs map[blobKey]blobRow
	values := make(map[string]checkpoint.Value, 1)
	for ch, v := range r.versions {
		if !checkpoint.IsReserved(ch) {
			continue
		}
		if blobs == nil {
			blobs = make(map[blobKey]blobRow, 2)
			if addInline(blobs, r.id, r.inline) != nil {
				return nil, false // the transaction's read reports it
			}
		}
		val, err := rebuild(blobs, ch, v)
		if err != nil {
			return nil, false // elsewhere, or missing: read as Get reads
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
