package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"

	"github.com/stategraph/stategraph/store"
)

var (
	_ store.Searcher        = (*Driver)(nil)
	_ store.NamespaceLister = (*Driver)(nil)
)

// cond is a SQL condition being built: its text and arguments, in order.
type cond struct {
	b    strings.Builder
	args []any
}

func (c *cond) add(sql string, args ...any) {
	c.b.WriteString(sql)
	c.args = append(c.args, args...)
}

// where builds the condition of the records of q, with the columns of
// the items table qualified by t ("" or "i."). It is exact unless a
// condition had to be loosened (see condition).
func where(q store.Query, t string) (*cond, bool) {
	c := &cond{}
	c.add("("+t+"expires_at IS NULL OR "+t+"expires_at > ?)", nanos(q.Now))
	if q.Prefix != "" {
		c.add(" AND ("+t+"ns = ? OR ("+t+"ns >= ? AND "+t+"ns < ?))", q.Prefix, q.Prefix+".", q.Prefix+"/")
	}
	exact := true
	for _, fc := range q.Conditions {
		c.add(" AND ")
		if !condition(c, fc, t+"value") {
			exact = false
		}
	}
	return c, exact
}

// jsonPath is the SQLite JSON path of labels: each quoted, with " and \
// escaped.
func jsonPath(labels ...string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, l := range labels {
		b.WriteString(`."`)
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(l))
		b.WriteString(`"`)
	}
	return b.String()
}

// field writes the path of fc's field in value: the top-level field
// named fc.Key if there is one, else the nested path, as Filter matching
// finds it. A path of objects only: a label never indexes an array.
func field(c *cond, fc store.Condition, value string) {
	if len(fc.Path) == 1 {
		c.add("?", jsonPath(fc.Key))
		return
	}
	lit := jsonPath(fc.Key)
	c.add("(CASE WHEN json_type("+value+", ?) IS NOT NULL THEN ? ELSE ? END)", lit, lit, jsonPath(fc.Path...))
}

// condition writes fc on the JSON column value and reports whether it is
// exact. Equality with an array or an object is loosened to "the field
// is an array" (or object): SQLite cannot compare JSON values deeply,
// so the Store finishes the job.
func condition(c *cond, fc store.Condition, value string) bool {
	typ := func() { c.add("json_type(" + value + ", "); field(c, fc, value); c.add(")") }
	val := func() { c.add("json_extract(" + value + ", "); field(c, fc, value); c.add(")") }
	eq := func() bool {
		switch v := fc.Value.(type) {
		case nil:
			typ()
			c.add(" = 'null'")
		case bool:
			typ()
			c.add(fmt.Sprintf(" = '%t'", v))
		case float64:
			c.add("(")
			typ()
			c.add(" IN ('integer', 'real') AND CAST(")
			val()
			c.add(" AS REAL) = ?)", v)
		case string:
			c.add("(")
			typ()
			c.add(" = 'text' AND ")
			val()
			c.add(" = ?)", v)
		case []any:
			typ()
			c.add(" = 'array'")
			return false
		default:
			typ()
			c.add(" = 'object'")
			return false
		}
		return true
	}
	op := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[fc.Op]
	switch {
	case fc.Op == "$eq":
		c.add("(")
		exact := eq()
		c.add(")")
		return exact
	case fc.Op == "$ne":
		switch fc.Value.(type) {
		case []any, map[string]any:
			c.add("1")
			return false
		}
		c.add("NOT IFNULL(")
		eq()
		c.add(", 0)")
		return true
	case op == "":
		panic("sqlite store: unknown operator " + fc.Op) // Filter.Conditions rejects them
	}
	switch v := fc.Value.(type) {
	case float64:
		c.add("(")
		typ()
		c.add(" IN ('integer', 'real') AND CAST(")
		val()
		c.add(" AS REAL) "+op+" ?)", v)
	case string:
		c.add("(")
		typ()
		c.add(" = 'text' AND ")
		val()
		c.add(" "+op+" ?)", v)
	default:
		c.add("0") // only numbers and strings are ordered
	}
	return true
}

// Search implements store.Searcher: the conditions, the order and, when
// they are exact, the page are SQL; with vectors, the matches' vectors are
// read first, in the same read transaction.
func (d *Driver) Search(ctx context.Context, q store.Query) (iter.Seq2[*store.Record, error], bool) {
	w, exact := where(q, "")
	page := ""
	if exact && (q.Limit > 0 || q.Offset > 0) {
		limit := q.Limit
		if limit == 0 {
			limit = -1 // SQLite's no limit
		}
		page = fmt.Sprintf(" LIMIT %d OFFSET %d", limit, q.Offset)
	}
	return func(yield func(*store.Record, error) bool) {
		tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			yield(nil, err)
			return
		}
		defer tx.Rollback() //nolint:errcheck // read only
		var vecs map[[2]string][]store.Vector
		if q.Vectors {
			vw, _ := where(q, "i.")
			if vecs, err = collectVectors(tx.QueryContext(ctx, `SELECT v.ns, v.key, v.field, v.seq, v.embedding FROM store_vectors v
JOIN store_items i ON i.ns = v.ns AND i.key = v.key WHERE `+vw.b.String(), vw.args...)); err != nil {
				yield(nil, err)
				return
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+columns+` FROM store_items WHERE `+w.b.String()+`
ORDER BY updated_at DESC, ns, key`+page, w.args...)
		yieldRecords(rows, err, vecs, yield)
	}, exact
}

// ListNamespaces implements store.NamespaceLister. SQLite finds the
// distinct namespaces under the query's literal prefix by skipping
// through the primary key, one seek per namespace rather than a read per
// item; matching the wildcards, truncating, sorting and paging that short
// list is left to Go (q.Apply).
func (d *Driver) ListNamespaces(ctx context.Context, q store.NamespaceQuery) ([][]string, error) {
	lo, hi := "", "" // hi "": no upper bound
	if lit := q.Literal(); lit != "" {
		lo, hi = lit, lit+"/"
	}
	rows, err := d.db.QueryContext(ctx, `WITH RECURSIVE n(ns) AS (
	SELECT (SELECT ns FROM store_items WHERE ns >= ?2 AND (?3 = '' OR ns < ?3) AND `+alive+` ORDER BY ns LIMIT 1)
	UNION ALL
	SELECT (SELECT i.ns FROM store_items i WHERE i.ns > n.ns AND (?3 = '' OR i.ns < ?3) AND (i.expires_at IS NULL OR i.expires_at > ?1) ORDER BY i.ns LIMIT 1)
	FROM n WHERE n.ns IS NOT NULL
)
SELECT ns FROM n WHERE ns IS NOT NULL`, nanos(q.Now), lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			return nil, err
		}
		all = append(all, ns)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return q.Apply(all), nil
}
