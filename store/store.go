package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Errors of a Store. Check them with errors.Is.
var (
	// ErrNotFound: Get found no item (none was put, it was deleted, or it
	// expired).
	ErrNotFound = errors.New("store: item not found")
	// ErrNoIndex: a Search with a Query on a store without an Index.
	ErrNoIndex = errors.New("store: semantic search needs an index (store.WithIndex)")
)

// Item is a stored value with its place and times.
type Item struct {
	Namespace []string
	Key       string
	// Value is the JSON object stored, as encoding/json decodes it
	// (numbers are float64).
	Value     map[string]any
	CreatedAt time.Time
	UpdatedAt time.Time
	// ExpiresAt is when the item expires; the zero time is never.
	ExpiresAt time.Time
	// Score is, in the results of a Search with a Query, the cosine
	// similarity between the query and the item's closest indexed text;
	// 0 otherwise.
	Score float64
}

// Store is a long-term, cross-thread store of items over a Driver. It is
// safe for concurrent use.
type Store struct {
	d       Driver
	index   *Index
	ttl     time.Duration
	refresh bool
	now     func() time.Time
}

// Option configures New.
type Option func(*Store)

// WithIndex enables semantic search: every Put embeds the index's fields
// of its value (unless told not to, see NoIndex), and Search accepts a
// Query.
func WithIndex(ix Index) Option { return func(s *Store) { s.index = &ix } }

// WithDefaultTTL makes every item put without WithTTL expire d after its
// last Put (0, the default: never).
func WithDefaultTTL(d time.Duration) Option { return func(s *Store) { s.ttl = d } }

// WithRefreshOnRead makes Get and Search renew the TTL of the items they
// return, as LangGraph's refresh_on_read does: an item used stays, an
// item forgotten expires.
func WithRefreshOnRead() Option { return func(s *Store) { s.refresh = true } }

// WithClock sets the clock that stamps items and decides expiry
// (time.Now by default), for tests.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns a Store over d. It fails when an Index has no Embedder.
func New(d Driver, opts ...Option) (*Store, error) {
	s := &Store{d: d, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.index != nil && s.index.Embedder == nil {
		return nil, errors.New("store: the index has no Embedder")
	}
	if s.ttl < 0 {
		return nil, fmt.Errorf("store: negative default TTL %v", s.ttl)
	}
	return s, nil
}

// Driver returns the Driver the store uses.
func (s *Store) Driver() Driver { return s.d }

// Close closes the driver if it has a Close method.
func (s *Store) Close() error {
	if c, ok := s.d.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// clock returns the current time at the precision every driver keeps.
func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// PutOption configures one Put.
type PutOption func(*putOptions)

type putOptions struct {
	ttl     time.Duration
	noIndex bool
	fields  []string
}

// WithTTL makes the item expire d after this Put (d > 0).
func WithTTL(d time.Duration) PutOption { return func(o *putOptions) { o.ttl = d } }

// NoIndex stores the item without embedding it: it takes no part in a
// semantic search (and loses any vectors an earlier Put stored).
func NoIndex() PutOption { return func(o *putOptions) { o.noIndex = true } }

// IndexFields embeds these paths of this value instead of the index's
// Fields.
func IndexFields(paths ...string) PutOption { return func(o *putOptions) { o.fields = paths } }

// Put stores value under (namespace, key), replacing what was there (the
// creation time stays). The value must encode as a JSON object.
func (s *Store) Put(ctx context.Context, namespace []string, key string, value any, opts ...PutOption) error {
	var o putOptions
	for _, opt := range opts {
		opt(&o)
	}
	where := fmt.Sprintf("store: put %q key %q", namespace, key)
	if err := checkNamespace(namespace); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if key == "" {
		return fmt.Errorf("%s: empty key", where)
	}
	if o.ttl < 0 {
		return fmt.Errorf("%s: negative TTL %v", where, o.ttl)
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("%s: value: %w", where, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return fmt.Errorf("%s: the value is not a JSON object: %s", where, truncate(raw))
	}
	now := s.clock()
	rec := Record{Namespace: EncodeNamespace(namespace), Key: key, Value: raw, CreatedAt: now, UpdatedAt: now}
	if ttl := cmp.Or(o.ttl, s.ttl); ttl > 0 {
		rec.ExpiresAt, rec.TTL = now.Add(ttl), ttl
	}
	if s.index != nil && !o.noIndex {
		fields := o.fields
		if len(fields) == 0 {
			fields = s.index.fields()
		}
		if rec.Vectors, err = s.embed(ctx, obj, fields); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	if err := s.d.Put(ctx, rec); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// embed returns the vectors of the texts at paths in value.
func (s *Store) embed(ctx context.Context, value map[string]any, paths []string) ([]Vector, error) {
	var vecs []Vector
	var all []string
	for _, p := range paths {
		ts, err := texts(value, p)
		if err != nil {
			return nil, err
		}
		for i, t := range ts {
			vecs = append(vecs, Vector{Field: p, Seq: i})
			all = append(all, t)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	embs, err := s.index.Embedder.EmbedDocuments(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(embs) != len(all) {
		return nil, fmt.Errorf("embed: the embedder returned %d vectors for %d texts", len(embs), len(all))
	}
	for i := range vecs {
		if err := s.checkDims(embs[i]); err != nil {
			return nil, fmt.Errorf("embed field %q: %w", vecs[i].Field, err)
		}
		vecs[i].Embedding = embs[i]
	}
	return vecs, nil
}

func (s *Store) checkDims(v []float32) error {
	switch {
	case len(v) == 0:
		return errors.New("the embedder returned an empty vector")
	case s.index.Dims > 0 && len(v) != s.index.Dims:
		return fmt.Errorf("a vector of %d dimensions, the index wants %d", len(v), s.index.Dims)
	}
	return nil
}

// Get returns the item under (namespace, key), or an error wrapping
// ErrNotFound.
func (s *Store) Get(ctx context.Context, namespace []string, key string) (*Item, error) {
	where := fmt.Sprintf("store: get %q key %q", namespace, key)
	if err := checkNamespace(namespace); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	now := s.clock()
	rec, err := s.d.Get(ctx, EncodeNamespace(namespace), key, now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if rec == nil {
		return nil, fmt.Errorf("%s: %w", where, ErrNotFound)
	}
	if err := s.refreshed(ctx, now, rec); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	it, err := itemOf(rec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return it, nil
}

// Delete removes the item under (namespace, key). Deleting a missing item
// is not an error.
func (s *Store) Delete(ctx context.Context, namespace []string, key string) error {
	where := fmt.Sprintf("store: delete %q key %q", namespace, key)
	if err := checkNamespace(namespace); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := s.d.Delete(ctx, EncodeNamespace(namespace), key); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// Sweep deletes the items that have expired, batch at a time (100 when
// batch < 1), and returns how many it deleted. Expired items are already
// invisible; Sweep reclaims their space. Each batch is a transaction of
// its own, so writers wait for one batch at most.
func (s *Store) Sweep(ctx context.Context, batch int) (int, error) {
	if batch < 1 {
		batch = 100
	}
	now := s.clock()
	total := 0
	for {
		n, err := s.d.DeleteExpired(ctx, now, batch)
		total += n
		if err != nil {
			return total, fmt.Errorf("store: sweep expired items: %w", err)
		}
		if n < batch {
			return total, nil
		}
	}
}

// refreshed renews the TTL of recs, with WithRefreshOnRead, and sets
// their ExpiresAt to match.
func (s *Store) refreshed(ctx context.Context, now time.Time, recs ...*Record) error {
	if !s.refresh {
		return nil
	}
	var refs []Ref
	for _, r := range recs {
		if r.TTL > 0 {
			refs = append(refs, Ref{r.Namespace, r.Key})
			r.ExpiresAt = now.Add(r.TTL)
		}
	}
	if len(refs) == 0 {
		return nil
	}
	if err := s.d.Refresh(ctx, refs, now); err != nil {
		return fmt.Errorf("refresh the TTL: %w", err)
	}
	return nil
}

func itemOf(rec *Record) (*Item, error) {
	var v map[string]any
	if err := json.Unmarshal(rec.Value, &v); err != nil {
		return nil, fmt.Errorf("item %q key %q: stored value: %w", rec.Namespace, rec.Key, err)
	}
	return &Item{
		Namespace: DecodeNamespace(rec.Namespace), Key: rec.Key, Value: v,
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, ExpiresAt: rec.ExpiresAt,
	}, nil
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
