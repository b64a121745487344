package postgres

import (
	"context"
	"fmt"
)

// A List that does not walk every checkpoint (a metadata filter, a limit
// that ends it, a Before cursor) still verifies the links of what it
// returns: checkSpan reads the id and integrity columns of every row from
// the top of what the List has covered down to the oldest row a page
// returns, and the row just older, in one statement (one snapshot), and
// checks that each names the next older one (checkLink). A row deleted,
// or moved to another thread or namespace, between two returned ones,
// just below the oldest, or below the Before cursor, is ErrCorrupt, as a
// walk of the whole history finds it. Once the List has read its last
// row, the span reaches the oldest checkpoint. It reads four narrow
// columns per row, never values.

// span is where the rest of a List's verification starts: top
// (inclusive; "" for the head), the Before cursor at first, then the
// oldest row verified.
type span struct {
	top string
}

// checkSpan verifies the links from sp's top down to bottom (a returned
// row; "" for the oldest row there is) and from bottom to the row below
// it, and moves sp's top to bottom.
func (s *Saver) checkSpan(ctx context.Context, thread, ns string, sp *span, bottom string) error {
	rows, err := s.pool.Query(ctx, `SELECT id, prev, nwrites, crc FROM (
	(SELECT 0 AS part, id, prev, nwrites, crc FROM `+s.t.checkpoints+`
	 WHERE thread_id = $1 AND ns = $2 AND id >= $3 AND ($4 = '' OR id <= $4))
	UNION ALL
	(SELECT 1, id, prev, nwrites, crc FROM `+s.t.checkpoints+`
	 WHERE thread_id = $1 AND ns = $2 AND id < $3 ORDER BY id DESC LIMIT 1)
) links ORDER BY part, id DESC`, thread, ns, bottom, sp.top)
	if err != nil {
		return fmt.Errorf("postgres: read thread %q ns %q: %w", thread, ns, err)
	}
	defer rows.Close()
	var newer *rowInfo
	for rows.Next() {
		r := rowInfo{thread: thread, ns: ns}
		if err := rows.Scan(&r.id, &r.prev, &r.nwrites, &r.crc); err != nil {
			return fmt.Errorf("postgres: read thread %q ns %q: %w", thread, ns, err)
		}
		if newer != nil {
			if err := checkLink(newer, &r); err != nil {
				return err
			}
		}
		newer = &r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: read thread %q ns %q: %w", thread, ns, err)
	}
	if newer != nil && (bottom == "" || newer.id >= bottom) {
		// Nothing older than the span: newer is the oldest there is.
		if err := checkLink(newer, nil); err != nil {
			return err
		}
	}
	sp.top = bottom
	return nil
}
