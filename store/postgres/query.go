package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/store"
)

var (
	_ store.Searcher        = (*Driver)(nil)
	_ store.NamespaceLister = (*Driver)(nil)
)

// cond is a SQL condition being built: its text and its arguments, which
// it numbers $1, $2, … as they are added.
type cond struct {
	b    strings.Builder
	args []any
}

// arg adds v as an argument and returns its placeholder.
func (c *cond) arg(v any) string {
	c.args = append(c.args, v)
	return fmt.Sprintf("$%d", len(c.args))
}

func (c *cond) add(sql string) { c.b.WriteString(sql) }

// where builds the condition of the records of q, with the columns of
// the items table qualified by t ("" or "i."). It is exact unless a
// condition had to be loosened (see condition).
func where(c *cond, q store.Query, t string) bool {
	c.add("(" + t + "expires_at IS NULL OR " + t + "expires_at > " + c.arg(q.Now) + ")")
	if q.Prefix != "" {
		c.add(" AND (" + t + "ns = " + c.arg(q.Prefix) + " OR (" + t + "ns >= " + c.arg(q.Prefix+".") + " AND " + t + "ns < " + c.arg(q.Prefix+"/") + "))")
	}
	exact := true
	for _, fc := range q.Conditions {
		c.add(" AND ")
		if !condition(c, fc, t+"value") {
			exact = false
		}
	}
	return exact
}

// field returns the expression of fc's field in value: the top-level
// field named fc.Key if there is one, else the nested path through
// objects (-> with a text key is NULL on an array: a label never indexes
// one), as Filter matching finds it.
func field(c *cond, fc store.Condition, value string) string {
	if len(fc.Path) == 1 {
		return "(" + value + " -> " + c.arg(fc.Key) + "::text)"
	}
	lit := c.arg(fc.Key)
	nested := value
	for _, l := range fc.Path {
		nested += " -> " + c.arg(l) + "::text"
	}
	return "(CASE WHEN " + value + " ? " + lit + "::text THEN " + value + " -> " + lit + "::text ELSE " + nested + " END)"
}

// hasNumber reports whether the JSON value v holds a number.
func hasNumber(v any) bool {
	switch v := v.(type) {
	case float64:
		return true
	case []any:
		for _, e := range v {
			if hasNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}

// condition writes fc on the jsonb column value and reports whether it
// is exact. Numbers compare as float8, as Go compares float64s; jsonb
// compares numbers inside arrays and objects as numerics, which can tell
// apart two numbers that are one float64, so an equality with an array
// or object holding numbers is loosened to "the field is an array" (or
// object) and the Store finishes the job.
func condition(c *cond, fc store.Condition, value string) bool {
	op := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[fc.Op]
	switch fc.Value.(type) {
	case float64, string:
	default:
		if op != "" {
			c.add("false") // only numbers and strings are ordered
			return true
		}
	}
	kind := loose(fc.Value)
	if fc.Op == "$ne" && kind != "" {
		c.add("true")
		return false
	}
	f := field(c, fc, value)
	eq := func() (string, bool) {
		if kind != "" {
			return "jsonb_typeof(" + f + ") = '" + kind + "'", false
		}
		if v, ok := fc.Value.(float64); ok {
			return "(CASE WHEN jsonb_typeof(" + f + ") = 'number' THEN " + f + "::float8 = " + c.arg(v) + "::float8 ELSE false END)", true
		}
		b, _ := json.Marshal(fc.Value) // decoded JSON: always encodes
		return "(" + f + " = " + c.arg(string(b)) + "::jsonb)", true
	}
	switch {
	case fc.Op == "$eq":
		// No containment test (value @> '{"kind":"note"}') that a GIN
		// index could answer: PostgreSQL guesses its selectivity, and the
		// guess — a handful of rows — makes it read every match through
		// the GIN index and sort them, where walking the updated_at index
		// stops at the page (15.6 ms against 0.07 ms for the newest ten of
		// 4,000 matches among 10,000 items).
		e, exact := eq()
		c.add(e)
		return exact
	case fc.Op == "$ne":
		e, _ := eq() // exact: loose ones returned above
		c.add("NOT coalesce(" + e + ", false)")
		return true
	case op == "":
		panic("postgres store: unknown operator " + fc.Op) // Filter.Conditions rejects them
	}
	switch v := fc.Value.(type) {
	case float64:
		c.add("(CASE WHEN jsonb_typeof(" + f + ") = 'number' THEN " + f + "::float8 " + op + " " + c.arg(v) + "::float8 ELSE false END)")
	case string:
		c.add("(CASE WHEN jsonb_typeof(" + f + ") = 'string' THEN (" + f + " #>> '{}') COLLATE \"C\" " + op + " " + c.arg(v) + "::text ELSE false END)")
	}
	return true
}

// loose returns the jsonb type of v ("array" or "object") when SQL
// cannot decide an equality with v exactly: v holds a number. It returns
// "" otherwise.
func loose(v any) string {
	if !hasNumber(v) {
		return ""
	}
	switch v.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// Search implements store.Searcher: the conditions, the order and, when
// they are exact, the page are SQL; with vectors, the matches' vectors
// are read first, in the same repeatable-read transaction.
func (d *Driver) Search(ctx context.Context, q store.Query) (iter.Seq2[*store.Record, error], bool) {
	w := &cond{}
	exact := where(w, q, "")
	page := ""
	if exact && q.Limit > 0 {
		page += " LIMIT " + w.arg(q.Limit)
	}
	if exact && q.Offset > 0 {
		page += " OFFSET " + w.arg(q.Offset)
	}
	return func(yield func(*store.Record, error) bool) {
		tx, err := d.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			yield(nil, err)
			return
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
		var vecs map[[2]string][]store.Vector
		if q.Vectors {
			vw := &cond{}
			where(vw, q, "i.")
			rows, err := tx.Query(ctx, `SELECT v.ns, v.key, v.field, v.seq, v.embedding FROM `+d.vecs+` v
JOIN `+d.items+` i ON i.ns = v.ns AND i.key = v.key WHERE `+vw.b.String(), vw.args...)
			if vecs, err = collectVectors(rows, err); err != nil {
				yield(nil, err)
				return
			}
		}
		rows, err := tx.Query(ctx, `SELECT `+columns+` FROM `+d.items+` WHERE `+w.b.String()+`
ORDER BY updated_at DESC, ns, key`+page, w.args...)
		yieldRecords(rows, err, vecs, yield)
	}, exact
}

// ListNamespaces implements store.NamespaceLister, in one statement: the
// distinct namespaces under the query's literal prefix, found by skipping
// through the primary key (one index seek per namespace, not a read per
// item), split into label arrays, matched, truncated, sorted (text[]
// compares label by label, in the columns' byte order) and paged.
func (d *Driver) ListNamespaces(ctx context.Context, q store.NamespaceQuery) ([][]string, error) {
	c := &cond{}
	now := c.arg(q.Now)
	lo, hi := "", "" // hi "": no upper bound
	if lit := q.Literal(); lit != "" {
		lo, hi = lit, lit+"/"
	}
	lop, hip := c.arg(lo), c.arg(hi)
	bound := func(t string) string {
		return t + "ns < " + hip + " OR " + hip + " = '') AND (" + t + "expires_at IS NULL OR " + t + "expires_at > " + now + ")"
	}
	var match []string
	if n := len(q.Prefix); n > 0 {
		match = append(match, fmt.Sprintf("cardinality(a) >= %d", n))
		for i, l := range q.Prefix {
			if l != store.Wildcard {
				match = append(match, fmt.Sprintf("a[%d] = %s::text", i+1, c.arg(l)))
			}
		}
	}
	if m := len(q.Suffix); m > 0 {
		match = append(match, fmt.Sprintf("cardinality(a) >= %d", m))
		for j, l := range q.Suffix {
			if l != store.Wildcard {
				match = append(match, fmt.Sprintf("a[cardinality(a) - %d] = %s::text", m-1-j, c.arg(l)))
			}
		}
	}
	labels := "a"
	if q.MaxDepth > 0 {
		labels = fmt.Sprintf("a[1:%d]", q.MaxDepth)
	}
	filter := ""
	if len(match) > 0 {
		filter = " WHERE " + strings.Join(match, " AND ")
	}
	page := ""
	if q.Limit > 0 {
		page += " LIMIT " + c.arg(q.Limit)
	}
	if q.Offset > 0 {
		page += " OFFSET " + c.arg(q.Offset)
	}
	rows, err := d.pool.Query(ctx, `WITH RECURSIVE n(ns) AS (
	(SELECT ns FROM `+d.items+` WHERE ns >= `+lop+` AND (`+bound("")+` ORDER BY ns LIMIT 1)
	UNION ALL
	SELECT (SELECT i.ns FROM `+d.items+` i WHERE i.ns > n.ns AND (`+bound("i.")+` ORDER BY i.ns LIMIT 1)
	FROM n WHERE n.ns IS NOT NULL
), l AS (SELECT string_to_array(ns, '.') AS a FROM n WHERE ns IS NOT NULL)
SELECT DISTINCT `+labels+` AS labels FROM l`+filter+` ORDER BY labels`+page, c.args...)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[[]string])
	if len(out) == 0 {
		return nil, err
	}
	return out, err
}
