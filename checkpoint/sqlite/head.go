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
func (s *Saver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	thread, ns := cfg.ThreadID, cfg.Namespace
	var tup *checkpoint.Tuple
	err := s.read(ctx, func(tx *sql.Tx) error {
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
