package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"iter"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Pages of List grow from firstPage to maxPage rows, so the first item
// comes quickly (the first page is the newest checkpoint alone: its
// values, its writes and nothing else before it is yielded) and a long
// history takes few queries.
const (
	firstPage = 1
	maxPage   = 512
)

// List yields the checkpoints of cfg's thread and namespace, newest first,
// narrowed by opts (only cfg.CheckpointID when it is set; an unknown id
// yields nothing). It reads a page of checkpoints at a time, with the
// blobs and writes of the whole page in one query each. Filters on
// "source", "step", "run_id" and on string values of Extra run in SQL;
// the rest are matched with checkpoint.Metadata.Matches.
func (s *Saver) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return func(yield func(*checkpoint.Tuple, error) bool) {
		thread, ns := cfg.ThreadID, cfg.Namespace
		q := buildListQuery(cfg, opts)
		remaining := opts.Limit
		if remaining < 0 {
			remaining = 0
		}
		cursor := opts.Before
		size := firstPage
		// A walk of every checkpoint (no filter, not one id) checks
		// that each names the next older one as the head it replaced,
		// and that the oldest names none: a missing row is ErrCorrupt.
		chained := len(opts.Filter) == 0 && cfg.CheckpointID == ""
		// Any other walk of the history (a filter, a limit that ends
		// it, a Before cursor) verifies the links of what it returns
		// (span.go).
		sp := span{top: opts.Before}
		var newer *cpRow
		sc := newRowScanner(thread, ns)
		// keep holds a page's rows. The tuples load makes copy what they
		// need of them, so the next page reuses it.
		var keep []cpRow
		for {
			n := size
			if q.exact && remaining > 0 && remaining < n {
				n = remaining
			}
			var tups []*checkpoint.Tuple
			fetched := 0
			err := s.read(ctx, func(tx *sql.Tx) error {
				if cap(keep) < n {
					keep = make([]cpRow, 0, n)
				}
				keep = keep[:0]
				query := q.sql(cursor != "")
				stmt, err := s.st.listStmt(ctx, query)
				if err != nil {
					return err
				}
				var rs *sql.Rows
				if stmt != nil {
					rs, err = tx.StmtContext(ctx, stmt).QueryContext(ctx, q.args(cursor, n)...)
				} else {
					rs, err = tx.QueryContext(ctx, query, q.args(cursor, n)...)
				}
				if err != nil {
					return err
				}
				defer rs.Close()
				for rs.Next() {
					fetched++
					r, err := sc.scan(rs)
					if err != nil {
						return err
					}
					cursor = r.id
					if chained {
						if newer != nil {
							err := checkLink(thread, ns, newer, &r)
							if err != nil && fetched == 1 {
								err = s.relink(ctx, tx, thread, ns, newer, &r)
							}
							if err != nil {
								return err
							}
						}
						newer = &r
					}
					if !r.md.Matches(opts.Filter) {
						continue
					}
					keep = append(keep, r)
					if remaining > 0 && len(keep) == remaining {
						break
					}
				}
				if err := rs.Err(); err != nil {
					return err
				}
				if chained && newer != nil && fetched < n && (remaining == 0 || len(keep) < remaining) {
					// The oldest checkpoint there is.
					err := checkLink(thread, ns, newer, nil)
					if err != nil && fetched == 0 {
						err = s.relink(ctx, tx, thread, ns, newer, nil)
					}
					if err != nil {
						return err
					}
				}
				tups, err = s.load(ctx, tx, thread, ns, keep, opts.SkipValue)
				if err != nil {
					return err
				}
				cut := remaining > 0 && len(keep) == remaining
				if cfg.CheckpointID == "" && (!chained || cut || opts.Before != "") {
					// Down to the oldest row returned, or, once the
					// walk has read the last row, to the oldest row.
					bottom, end := "", !cut && fetched < n
					if len(keep) > 0 && !end {
						bottom = keep[len(keep)-1].id
					}
					if len(keep) > 0 || end {
						if err := checkSpan(ctx, tx, thread, ns, &sp, bottom); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				yield(nil, wrapRead(ctx, err, "list", cfg))
				return
			}
			for _, tup := range tups {
				if !yield(tup, nil) {
					return
				}
				if remaining > 0 {
					remaining--
					if remaining == 0 {
						return
					}
				}
			}
			if fetched < n || cfg.CheckpointID != "" {
				return
			}
			size = min(size*4, maxPage)
		}
	}
}

// relink checks again, in tx, a link that failed between newer, read by
// the page before, and older: a Prune or DeleteThread that committed
// between the two pages changes the history under the walk. newer gone
// is no damage; newer's prev changed (Prune made it the oldest) is
// checked as it is now.
func (s *Saver) relink(ctx context.Context, tx *sql.Tx, thread, ns string, newer, older *cpRow) error {
	var prev sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT prev FROM checkpoints WHERE thread_id = ? AND ns = ? AND id = ?`, thread, ns, newer.id).Scan(&prev)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	now := *newer
	now.prev = prev
	return checkLink(thread, ns, &now, older)
}

// listQuery is the SQL of one List: its conditions and their arguments.
type listQuery struct {
	where []string
	wargs []any
	// exact is set when SQL applies the whole filter.
	exact bool
}

// buildListQuery turns cfg and opts into SQL conditions.
func buildListQuery(cfg checkpoint.Config, opts checkpoint.ListOptions) listQuery {
	q := listQuery{
		where: []string{"thread_id = ?", "ns = ?"},
		wargs: []any{cfg.ThreadID, cfg.Namespace},
		exact: true,
	}
	if cfg.CheckpointID != "" {
		q.where = append(q.where, "id = ?")
		q.wargs = append(q.wargs, cfg.CheckpointID)
	}
	keys := make([]string, 0, len(opts.Filter))
	for k := range opts.Filter {
		keys = append(keys, k)
	}
	slices.Sort(keys) // one SQL text per set of keys
	for _, k := range keys {
		cond, args, ok := filterCondition(k, opts.Filter[k])
		if !ok {
			q.exact = false
			continue
		}
		q.where = append(q.where, cond)
		q.wargs = append(q.wargs, args...)
	}
	return q
}

// filterCondition returns the SQL condition that keeps the rows whose
// metadata has want at key, as checkpoint.Metadata.Matches decides it, or
// false when the comparison is left to Matches.
func filterCondition(key string, want any) (string, []any, bool) {
	v := checkpoint.NormalizeFilterValue(want)
	switch key {
	case "source":
		if s, ok := v.(string); ok {
			return "json_extract(metadata, '$.source') = ?", []any{s}, true
		}
	case "step":
		if f, ok := v.(float64); ok {
			return "json_extract(metadata, '$.step') = ?", []any{f}, true
		}
	case "run_id":
		// Metadata.RunID is omitted when empty, and then an Extra
		// "run_id" shows through, as in Metadata.Flatten.
		if s, ok := v.(string); ok {
			return "coalesce(json_extract(metadata, '$.run_id'), json_extract(metadata, '$.extra.run_id')) = ?", []any{s}, true
		}
	case "parents", "nodes":
		// Left to Matches, which owns what these keys mean.
	default:
		if s, ok := v.(string); ok {
			return "(SELECT value FROM json_each(metadata, '$.extra') WHERE key = ? AND type = 'text') = ?", []any{key, s}, true
		}
	}
	return "", nil, false
}

// sql returns the query for a page, with an "id < cursor" condition when
// after is set.
func (q listQuery) sql(after bool) string {
	var b strings.Builder
	b.WriteString("SELECT " + checkpointCols + " FROM checkpoints WHERE ")
	b.WriteString(strings.Join(q.where, " AND "))
	if after {
		b.WriteString(" AND id < ?")
	}
	b.WriteString(" ORDER BY id DESC LIMIT ?")
	return b.String()
}

// args returns the arguments of q.sql(cursor != "").
func (q listQuery) args(cursor string, limit int) []any {
	args := slices.Clone(q.wargs)
	if cursor != "" {
		args = append(args, cursor)
	}
	return append(args, limit)
}
