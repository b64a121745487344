package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// A value is looked for where its version says: inline in the row of the
// checkpoint the version belongs to (versionOwner), else in the blobs
// table. When that row is deleted, or does not match its checksum (a read
// does not trust its inline column then), the value is missing as a
// consequence; the damage to report is the row's. A read that finds a
// value missing (rebuild's missingBlob) therefore asks, before it reports
// it, what became of the row (whyMissing): the success path costs
// nothing more, the error path two or three small reads.

// missingBlob is rebuild's error for a blob that is nowhere.
type missingBlob struct {
	version string
	// base is set when the blob is a base of the delta chain of the
	// version read, not the version itself.
	base bool
}

func (e *missingBlob) Error() string {
	if e.base {
		return fmt.Sprintf("base version %q of the delta chain missing", e.version)
	}
	return "blob missing"
}

// sqlNewerThan and sqlOlderThan read the rows on either side of an id,
// which the history's links join.
const (
	sqlNewerThan = `SELECT ` + checkpointCols + ` FROM checkpoints
WHERE thread_id = ? AND ns = ? AND id > ? ORDER BY id LIMIT 1`
	sqlOlderThan = `SELECT ` + checkpointCols + ` FROM checkpoints
WHERE thread_id = ? AND ns = ? AND id < ? ORDER BY id DESC LIMIT 1`
)

// whyMissing returns the damage that made the blob of err (an error of
// rebuild) missing, when it is the row of the checkpoint its version
// belongs to: that row does not read or does not match its checksum, or
// was damaged into looking written before checksums, or it is absent
// from a history whose links say it was there. It returns nil when err
// is not a missing blob, or the row is sound or was removed as Prune
// removes one: then the blob itself is what is missing. A failure to
// read is returned as it is. It reads with unprepared statements, so
// that Prune, whose transaction is on the write handle, asks it too.
func whyMissing(ctx context.Context, tx *sql.Tx, thread, ns string, err error) error {
	var m *missingBlob
	if !errors.As(err, &m) {
		return nil
	}
	owner := versionOwner(m.version)
	// at reads the row query finds beside (or at) owner.
	at := func(query string) (cpRow, error) {
		return scanCheckpoint(tx.QueryRowContext(ctx, query, thread, ns, owner), thread, ns)
	}
	row, err := at(sqlGetByID)
	switch {
	case err == nil && row.legacy:
		// A row without checksums, which is sound unless one older
		// than it has them: then it was damaged into looking so.
		older, err := at(sqlOlderThan)
		if err != nil {
			return nilIfNoRows(err)
		}
		return checkLink(thread, ns, &row, &older)
	case !errors.Is(err, sql.ErrNoRows):
		return err // nil: the row is sound
	}
	// Absent: the link between the rows on either side says whether a
	// checkpoint is missing there (and which), as a walk of the whole
	// history would.
	newer, err := at(sqlNewerThan)
	if err != nil {
		// None after it: the version names no checkpoint of this
		// history.
		return nilIfNoRows(err)
	}
	older, err := at(sqlOlderThan)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return checkLink(thread, ns, &newer, nil)
	case err != nil:
		return err
	}
	return checkLink(thread, ns, &newer, &older)
}

func nilIfNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}
