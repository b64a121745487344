package sqlite

import (
	"context"
	"database/sql"
)

// A List that does not walk every checkpoint (a metadata filter, or a
// limit that ends it early) still verifies the links of what it returns:
// checkSpan reads the id and prev of every row from the top of what the
// List has covered down to the oldest row it returns, and the row just
// older, in the transaction of the page, and checks that each names the
// next older one (checkLink). A row deleted between two returned ones,
// just below the oldest or just below the Before cursor is ErrCorrupt, as an unfiltered walk finds it. It
// reads two narrow columns per row of the span, never values.

// spanSQL selects the links of the rows of a span, newest first: those
// from the top bound down to bottom, then the one row just below bottom.
const spanSQL = `SELECT id, prev, crc IS NULL AND prev IS NULL AND nwrites IS NULL FROM checkpoints
WHERE thread_id = ?1 AND ns = ?2 AND id >= ?3 AND (?4 = '' OR id <= ?4)
ORDER BY id DESC`

const belowSQL = `SELECT id, prev, crc IS NULL AND prev IS NULL AND nwrites IS NULL FROM checkpoints
WHERE thread_id = ?1 AND ns = ?2 AND id < ?3 ORDER BY id DESC LIMIT 1`

// span is where the rest of a List's verification starts: at top
// (inclusive; "" for the head), the List's Before cursor at first, so
// that the link from the checkpoint a page starts below is checked too,
// then the oldest row verified.
type span struct {
	top string
}

// checkSpan verifies the links from sp's top down to bottom (a returned
// row) and from bottom to the row below it, and moves sp's top to bottom.
func checkSpan(ctx context.Context, tx *sql.Tx, thread, ns string, sp *span, bottom string) error {
	rows, err := tx.QueryContext(ctx, spanSQL, thread, ns, bottom, sp.top)
	if err != nil {
		return err
	}
	var newer *cpRow
	for rows.Next() {
		var r cpRow
		if err := rows.Scan(&r.id, &r.prev, &r.legacy); err != nil {
			rows.Close()
			return err
		}
		if newer != nil {
			if err := checkLink(thread, ns, newer, &r); err != nil {
				rows.Close()
				return err
			}
		}
		newer = &r
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if newer == nil {
		return nil // gone under the walk (a Prune or DeleteThread since)
	}
	var older cpRow
	err = tx.QueryRowContext(ctx, belowSQL, thread, ns, newer.id).Scan(&older.id, &older.prev, &older.legacy)
	switch {
	case err == sql.ErrNoRows:
		err = checkLink(thread, ns, newer, nil)
	case err == nil:
		err = checkLink(thread, ns, newer, &older)
	}
	if err != nil {
		return err
	}
	sp.top = bottom
	return nil
}
