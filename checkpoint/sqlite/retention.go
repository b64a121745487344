package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stategraph/stategraph/retention"
)

var _ retention.Expirer = (*Saver)(nil)

// StaleThreads implements retention.Expirer. The primary key (thread_id,
// ns, id) serves the range and the grouping; created_at holds Unix
// nanoseconds.
func (s *Saver) StaleThreads(ctx context.Context, cutoff time.Time, after string, limit int) ([]retention.Thread, error) {
	var out []retention.Thread
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT thread_id, max(created_at) FROM checkpoints
WHERE thread_id > ?1 GROUP BY thread_id HAVING max(created_at) < ?2 ORDER BY thread_id LIMIT ?3`, after, cutoff.UnixNano(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t retention.Thread
			var ns int64
			if err := rows.Scan(&t.ID, &ns); err != nil {
				return err
			}
			t.Updated = time.Unix(0, ns).UTC()
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, withCtx(ctx, fmt.Errorf("sqlite: list threads older than %s: %w", cutoff.Format(time.RFC3339), err))
	}
	return out, nil
}

// DeleteStaleThreads implements retention.Expirer in one write
// transaction, which holds the database's write lock from its first
// statement: no checkpoint can be stored between the check and the
// delete.
func (s *Saver) DeleteStaleThreads(ctx context.Context, cutoff time.Time, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var deleted []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		deleted = deleted[:0]
		args := make([]any, 0, len(ids)+1)
		args = append(args, cutoff.UnixNano())
		for _, id := range ids {
			args = append(args, id)
		}
		marks := make([]string, len(ids)) // numbered: ?1 is the cutoff
		for i := range ids {
			marks[i] = "?" + strconv.Itoa(i+2)
		}
		in := strings.Join(marks, ", ")
		rows, err := tx.QueryContext(ctx, `SELECT thread_id FROM checkpoints WHERE thread_id IN (`+in+`)
GROUP BY thread_id HAVING max(created_at) < ?1 ORDER BY thread_id`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			deleted = append(deleted, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range deleted {
			// The tables DeleteThread empties, in its order.
			for _, q := range []string{
				`DELETE FROM writes WHERE thread_id = ?`,
				`DELETE FROM blobs WHERE thread_id = ?`,
				`DELETE FROM checkpoints WHERE thread_id = ?`,
			} {
				if _, err := tx.ExecContext(ctx, q, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, withCtx(ctx, fmt.Errorf("sqlite: delete threads %q..%q older than %s: %w", ids[0], ids[len(ids)-1], cutoff.Format(time.RFC3339), err))
	}
	return deleted, nil
}
