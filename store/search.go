package store

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"slices"
)

// SearchOptions narrow a Search.
type SearchOptions struct {
	// Query, if set, ranks the items by semantic similarity to it (the
	// store needs an Index): best first, and only items with an embedding
	// take part. Without it, items come most recently updated first.
	Query string
	// Filter keeps the items whose value matches it.
	Filter Filter
	// Limit caps the results (10 when 0, as LangGraph's default).
	Limit int
	// Offset skips that many results first.
	Offset int
}

// Search returns the items whose namespace starts with prefix (every item
// for an empty prefix) and that match opts.
func (s *Store) Search(ctx context.Context, prefix []string, opts SearchOptions) ([]Item, error) {
	where := fmt.Sprintf("store: search %q", prefix)
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if opts.Limit < 0 || opts.Offset < 0 {
		return nil, fmt.Errorf("%s: negative limit %d or offset %d", where, opts.Limit, opts.Offset)
	}
	if opts.Limit == 0 {
		opts.Limit = 10
	}
	filter, err := opts.Filter.normalize()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	var query []float32
	if opts.Query != "" {
		if s.index == nil {
			return nil, fmt.Errorf("%s: %w", where, ErrNoIndex)
		}
		if query, err = s.index.Embedder.EmbedQuery(ctx, opts.Query); err != nil {
			return nil, fmt.Errorf("%s: embed the query: %w", where, err)
		}
		if err := s.checkDims(query); err != nil {
			return nil, fmt.Errorf("%s: the query: %w", where, err)
		}
	}
	if query != nil {
		return s.rank(ctx, where, prefix, query, filter, opts)
	}
	now := s.clock()
	recs, exact := s.records(ctx, Query{Prefix: EncodeNamespace(prefix), Now: now, Conditions: filter.conditions(), Limit: opts.Limit, Offset: opts.Offset})
	if exact {
		filter, opts.Offset = nil, 0
	}
	var out []Item
	var page []*Record
	skip := opts.Offset
	for rec, err := range recs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		it, err := itemOf(rec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if filter != nil && !filter.match(it.Value) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, *it)
		page = append(page, rec)
		if len(out) == opts.Limit {
			break
		}
	}
	if err := s.refreshed(ctx, now, page...); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	for i := range out {
		out[i].ExpiresAt = page[i].ExpiresAt
	}
	return out, nil
}

// records runs q through the driver's Searcher, or through Scan (which
// is exact only without conditions and paging).
func (s *Store) records(ctx context.Context, q Query) (iter.Seq2[*Record, error], bool) {
	if sr, ok := s.d.(Searcher); ok {
		return sr.Search(ctx, q)
	}
	return s.d.Scan(ctx, q.Prefix, q.Now, q.Vectors), len(q.Conditions) == 0 && q.Offset == 0
}

// scored is a candidate of a semantic search.
type scored struct {
	rec   *Record
	item  *Item // decoded already (when a filter needed it), or nil
	score float64
}

// rank is Search with a query: every embedded item under the prefix that
// matches the filter is scored, the best come first (ties keep the
// driver's order, newest update first), and only the page is decoded.
func (s *Store) rank(ctx context.Context, where string, prefix []string, query []float32, filter Filter, opts SearchOptions) ([]Item, error) {
	var cands []scored
	now := s.clock()
	recs, exact := s.records(ctx, Query{Prefix: EncodeNamespace(prefix), Now: now, Conditions: filter.conditions(), Vectors: true})
	if exact {
		filter = nil
	}
	for rec, err := range recs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if len(rec.Vectors) == 0 {
			continue
		}
		c := scored{rec: rec}
		if filter != nil {
			if c.item, err = itemOf(rec); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if !filter.match(c.item.Value) {
				continue
			}
		}
		if c.score, err = best(query, rec); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		rec.Vectors = nil // ranked: the page needs no vectors
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	if opts.Offset >= len(cands) {
		return nil, nil
	}
	cands = cands[opts.Offset:]
	cands = cands[:min(len(cands), opts.Limit)]
	page := make([]*Record, len(cands))
	for i, c := range cands {
		page[i] = c.rec
	}
	if err := s.refreshed(ctx, now, page...); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	out := make([]Item, len(cands))
	for i, c := range cands {
		if c.item == nil {
			var err error
			if c.item, err = itemOf(c.rec); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		}
		out[i] = *c.item
		out[i].Score, out[i].ExpiresAt = c.score, c.rec.ExpiresAt
	}
	return out, nil
}

// best returns the highest cosine similarity of query to rec's vectors.
func best(query []float32, rec *Record) (float64, error) {
	score := -2.0
	for _, v := range rec.Vectors {
		if len(v.Embedding) != len(query) {
			return 0, fmt.Errorf("item %q key %q field %q: a vector of %d dimensions, the query has %d (re-put the items after changing the embedder)",
				rec.Namespace, rec.Key, v.Field, len(v.Embedding), len(query))
		}
		score = max(score, cosine(query, v.Embedding))
	}
	return score, nil
}

// ListNamespacesOptions narrow a ListNamespaces.
type ListNamespacesOptions struct {
	// Prefix and Suffix keep the namespaces that start or end with these
	// labels; a Wildcard label matches any label.
	Prefix, Suffix []string
	// MaxDepth, if positive, truncates each namespace to its first MaxDepth
	// labels (and lists each truncation once).
	MaxDepth int
	// Limit caps the results (100 when 0, as LangGraph's default).
	Limit int
	// Offset skips that many namespaces first.
	Offset int
}

// ListNamespaces returns the namespaces that hold items, sorted by their
// labels, narrowed by opts.
func (s *Store) ListNamespaces(ctx context.Context, opts ListNamespacesOptions) ([][]string, error) {
	if opts.Limit < 0 || opts.Offset < 0 || opts.MaxDepth < 0 {
		return nil, fmt.Errorf("store: list namespaces: negative limit %d, offset %d or max depth %d", opts.Limit, opts.Offset, opts.MaxDepth)
	}
	if opts.Limit == 0 {
		opts.Limit = 100
	}
	q := NamespaceQuery{Now: s.clock(), Prefix: opts.Prefix, Suffix: opts.Suffix, MaxDepth: opts.MaxDepth, Limit: opts.Limit, Offset: opts.Offset}
	if nl, ok := s.d.(NamespaceLister); ok {
		out, err := nl.ListNamespaces(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("store: list namespaces: %w", err)
		}
		return out, nil
	}
	all, err := s.d.Namespaces(ctx, q.Now)
	if err != nil {
		return nil, fmt.Errorf("store: list namespaces: %w", err)
	}
	return q.Apply(all), nil
}
