package store

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"
	"time"
)

// Query is a Search as a Searcher runs it in its database.
type Query struct {
	// Prefix is the encoded namespace prefix ("" for every record), as
	// Scan takes it.
	Prefix string
	// Now decides expiry: only records not expired at Now match.
	Now time.Time
	// Conditions must all hold (see Filter.Conditions).
	Conditions []Condition
	// Limit caps the records (0: no limit) after Offset are skipped.
	Limit, Offset int
	// Vectors asks for each record's Vectors.
	Vectors bool
}

// Searcher is implemented by drivers that filter and page in their
// database instead of handing every record to the Store. A Store uses it
// when its driver has it, Scan otherwise.
type Searcher interface {
	// Search returns the records of q in Scan's order. A driver that
	// cannot apply every condition exactly returns exact false and a
	// superset of the matches, in that order, with q.Limit and q.Offset
	// ignored: the Store then filters and pages them itself.
	Search(ctx context.Context, q Query) (recs iter.Seq2[*Record, error], exact bool)
}

// Condition is one comparison of a Filter: the field of a value at Key
// compared with Value by Op.
//
// Key names the field as Filter.match finds it: the top-level field
// named Key if there is one, else the nested field along Path (Key split
// at "."), each step an object. Op is "$eq", "$ne", "$gt", "$gte", "$lt"
// or "$lte". Value is as encoding/json decodes it: nil, bool, float64,
// string, []any or map[string]any. $eq holds when the field is present
// and deeply equal to Value (numbers compare as float64); $ne when it is
// absent or differs; the ordering operators when the field and Value are
// both numbers or both strings (compared byte by byte) and in that
// order.
type Condition struct {
	Key   string
	Path  []string
	Op    string
	Value any
}

// Conditions returns the conditions of f, sorted by key and operator, or
// an error naming the key of a value JSON cannot hold or an unknown
// operator.
func (f Filter) Conditions() ([]Condition, error) {
	n, err := f.normalize()
	if err != nil {
		return nil, err
	}
	return n.conditions(), nil
}

// conditions lists the conditions of a normalized filter.
func (f Filter) conditions() []Condition {
	var out []Condition
	for k, v := range f {
		path := strings.Split(k, ".")
		if m, ok := v.(map[string]any); ok && isOperatorMap(m) {
			for op, arg := range m {
				out = append(out, Condition{Key: k, Path: path, Op: op, Value: arg})
			}
			continue
		}
		out = append(out, Condition{Key: k, Path: path, Op: "$eq", Value: v})
	}
	slices.SortFunc(out, func(a, b Condition) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Op, b.Op)) })
	return out
}

// NamespaceQuery is a ListNamespaces as a NamespaceLister runs it.
type NamespaceQuery struct {
	// Now decides expiry: only namespaces with a record not expired at Now
	// are listed.
	Now time.Time
	// Prefix and Suffix are labels the namespaces start and end with; a
	// Wildcard label matches any label.
	Prefix, Suffix []string
	// MaxDepth, if positive, truncates each namespace to its first
	// MaxDepth labels (each truncation listed once).
	MaxDepth int
	// Limit caps the namespaces (0: no limit) after Offset are skipped.
	Limit, Offset int
}

// NamespaceLister is implemented by drivers that list namespaces in their
// database. A Store uses it when its driver has it, Namespaces otherwise.
type NamespaceLister interface {
	// ListNamespaces returns the namespaces of q, sorted by their labels
	// (a namespace before those it prefixes), paged.
	ListNamespaces(ctx context.Context, q NamespaceQuery) ([][]string, error)
}

// Literal returns the encoded labels of q.Prefix before its first
// Wildcard: every namespace q lists is Literal, or starts with Literal
// and ".". A driver narrows its read to that range.
func (q NamespaceQuery) Literal() string {
	n := slices.Index(q.Prefix, Wildcard)
	if n < 0 {
		n = len(q.Prefix)
	}
	return EncodeNamespace(q.Prefix[:n])
}

// Apply returns the namespaces of q among encoded, a list of distinct
// encoded namespaces: matched, truncated, sorted and paged. A driver that
// finds the distinct namespaces in its database and leaves the rest to Go
// calls it.
func (q NamespaceQuery) Apply(encoded []string) [][]string {
	var out [][]string
	for _, enc := range encoded {
		ns := DecodeNamespace(enc)
		if !matchLabels(ns, q.Prefix) || !matchSuffix(ns, q.Suffix) {
			continue
		}
		if q.MaxDepth > 0 && len(ns) > q.MaxDepth {
			ns = ns[:q.MaxDepth]
		}
		out = append(out, ns)
	}
	slices.SortFunc(out, slices.Compare)
	out = slices.CompactFunc(out, slices.Equal)
	if q.Offset >= len(out) {
		return nil
	}
	out = out[q.Offset:]
	if q.Limit > 0 {
		out = out[:min(len(out), q.Limit)]
	}
	return out
}
