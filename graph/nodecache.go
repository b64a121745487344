package graph

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store"
)

// Node caching (LangGraph's CachePolicy): a node given WithCache, in a
// graph compiled WithNodeCache, is not run when the cache holds a result
// for its input that has not expired; its writes (and Goto and Sends) come
// from the cache, and the task is marked as such (TaskEvent.FromCache,
// Event.Cached, TaskInfo.FromCache, TaskEnd.FromCache). A node that
// fails or interrupts stores nothing. The cache is shared across threads:
// a node that interrupts and was answered once stores its result, and a
// later task with the same input takes it without interrupting, as
// LangGraph's cache does; a task resumed with an answer runs the node with
// it. A cache error is a miss, never the task's failure.

// CachePolicy says how a node's results are cached.
type CachePolicy[S any] struct {
	// Key returns the cache key of the node's input (the state, or a
	// Send's argument). The default encodes every field of the input with
	// the graph's serializer; give one when part of the state does not
	// change the node's result.
	Key func(in S) string
	// TTL is how long a result stays valid; zero keeps it until the cache
	// drops it.
	TTL time.Duration
}

// WithCache caches the node's results under the policy, in the cache the
// graph was compiled with (WithNodeCache; Compile fails without one).
func WithCache[S any](p CachePolicy[S]) NodeOption {
	return func(o *nodeOptions) { o.cache = &p }
}

// WithNodeCache gives the graph the cache that nodes with WithCache use.
func WithNodeCache(c Cache) CompileOption {
	return func(o *compileOptions) { o.nodeCache = c }
}

// Cache stores nodes' results for WithCache. Keys are opaque strings; a
// value stays valid for the TTL it was set with (zero: no expiry), by
// the cache's own clock. It must be safe for concurrent use.
type Cache interface {
	// Get returns the value under key, and false when there is none or
	// it expired.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// MemoryCache is a Cache in this process's memory.
type MemoryCache struct {
	mu      sync.Mutex
	entries map[string]memoryEntry
	now     func() time.Time
	sets    int // since the last sweep of expired entries
}

// sweepEvery is how many Sets a MemoryCache takes between two sweeps of
// its expired entries, so keys never asked for again do not pile up.
const sweepEvery = 256

type memoryEntry struct {
	value   []byte
	expires time.Time // zero: never
}

// NewMemoryCache returns an empty MemoryCache. now is its clock (nil:
// time.Now), for tests.
func NewMemoryCache(now func() time.Time) *MemoryCache {
	if now == nil {
		now = time.Now
	}
	return &MemoryCache{entries: map[string]memoryEntry{}, now: now}
}

// Get returns the value under key unless it expired.
func (m *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok {
		return nil, false, nil
	}
	if !e.expires.IsZero() && !m.now().Before(e.expires) {
		delete(m.entries, key)
		return nil, false, nil
	}
	return e.value, true, nil
}

// Set stores value under key for ttl.
func (m *MemoryCache) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	e := memoryEntry{value: slices.Clone(value)}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if ttl > 0 {
		e.expires = now.Add(ttl)
	}
	m.entries[key] = e
	if m.sets++; m.sets >= sweepEvery {
		m.sets = 0
		for k, e := range m.entries {
			if !e.expires.IsZero() && !now.Before(e.expires) {
				delete(m.entries, k)
			}
		}
	}
	return nil
}

// Len returns how many entries the cache holds, expired ones not yet
// swept included.
func (m *MemoryCache) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// StoreCache is a Cache over a long-term store (package store): results
// are items under its namespace, with the store's TTLs and clock, so
// every process using the store shares them. A store made
// WithRefreshOnRead renews an entry each time it is read.
type StoreCache struct {
	s  *store.Store
	ns []string
}

// NewStoreCache returns a Cache keeping its entries in s under namespace
// (default "node_cache").
func NewStoreCache(s *store.Store, namespace ...string) *StoreCache {
	if len(namespace) == 0 {
		namespace = []string{"node_cache"}
	}
	return &StoreCache{s: s, ns: slices.Clone(namespace)}
}

type storedEntry struct {
	Value []byte `json:"value"`
}

// Get returns the value under key unless it expired.
func (c *StoreCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	it, err := c.s.Get(ctx, c.ns, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s, ok := it.Value["value"].(string)
	if !ok {
		return nil, false, fmt.Errorf("graph: node cache entry %q: no value", key)
	}
	v, err := base64.StdEncoding.DecodeString(s) // as encoding/json wrote the []byte
	if err != nil {
		return nil, false, fmt.Errorf("graph: node cache entry %q: %w", key, err)
	}
	return v, true, nil
}

// Set stores value under key for ttl.
func (c *StoreCache) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	var opts []store.PutOption
	if ttl > 0 {
		opts = append(opts, store.WithTTL(ttl))
	}
	return c.s.Put(ctx, c.ns, key, storedEntry{Value: value}, append(opts, store.NoIndex())...)
}

// cachedChannel is the pending write that marks a task's saved writes as
// taken from the node cache.
const cachedChannel = "__cached__"

// cacheKey returns the key of task t's result for its input in.
func (r *run[S]) nodeCacheKey(t *task[S], p *CachePolicy[S], in *S) (string, error) {
	h := sha256.New()
	h.Write([]byte(r.c.name))
	h.Write([]byte{0})
	h.Write([]byte(t.name))
	h.Write([]byte{0})
	// The schema's version and fields: two graphs without names sharing a
	// cache, or one graph before and after a change of its state, do not
	// read each other's results.
	h.Write([]byte(strconv.Itoa(r.c.schema.Version())))
	for i := range r.c.schema.Len() {
		h.Write([]byte{0})
		h.Write([]byte(r.c.schema.Name(i)))
	}
	h.Write([]byte{0})
	if p.Key != nil {
		h.Write([]byte(p.Key(*in)))
	} else {
		enc, err := r.c.schema.EncodeState(in, r.c.ser)
		if err != nil {
			return "", fmt.Errorf("cache key: %w", err)
		}
		for _, name := range sortedKeys(enc) {
			h.Write([]byte(name))
			h.Write([]byte{0})
			h.Write(enc[name])
			h.Write([]byte{0})
		}
	}
	return t.name + ":" + hex.EncodeToString(h.Sum(nil)), nil
}

// fromCache looks task t's result up under key in the node cache. On a
// hit it sets the task's update and reports true; an entry that cannot be
// read (a cache error, an entry another version wrote) is a miss.
func (r *run[S]) fromCache(ctx context.Context, t *task[S], key string) bool {
	data, ok, err := r.c.nodeCache.Get(ctx, key)
	if err != nil || !ok {
		return false
	}
	var ws []checkpoint.PendingWrite
	if err := json.Unmarshal(data, &ws); err != nil {
		return false
	}
	upd, err := r.c.decodeTaskWrites(ws)
	if err != nil {
		return false
	}
	t.update, t.fromCache = upd, true
	return true
}

// toCache stores task t's update under key. A result the cache does not
// take is not an error of the task: the next task with the key runs the
// node again.
func (r *run[S]) toCache(ctx context.Context, t *task[S], key string) {
	ws, err := encodeUpdate(r.c, t.update)
	if err != nil {
		return
	}
	data, err := json.Marshal(ws)
	if err != nil {
		return
	}
	_ = r.c.nodeCache.Set(ctx, key, data, t.node.cache.TTL)
}

// encodeUpdate encodes an update as pending writes without a task id.
func encodeUpdate[S any](c *Compiled[S], upd state.Update[S]) ([]checkpoint.PendingWrite, error) {
	var ws []checkpoint.PendingWrite
	for i, w := range upd.Writes {
		ch, data, err := c.schema.EncodeWrite(w, c.ser)
		if err != nil {
			return nil, err
		}
		ws = append(ws, checkpoint.PendingWrite{Index: i, Channel: ch, Value: data})
	}
	if len(upd.Goto) > 0 {
		data, _ := json.Marshal(upd.Goto)
		ws = append(ws, checkpoint.PendingWrite{Index: len(ws), Channel: checkpoint.GotoChannel, Value: data})
	}
	for _, s := range upd.Sends {
		ss, err := c.encodeSend(s)
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(ss)
		if err != nil {
			return nil, err
		}
		ws = append(ws, checkpoint.PendingWrite{Index: len(ws), Channel: checkpoint.SendChannel, Value: data})
	}
	return ws, nil
}

// cachedMarked reports whether a task's saved writes were taken from the
// node cache.
func cachedMarked(ws []checkpoint.PendingWrite) bool {
	return slices.ContainsFunc(ws, func(w checkpoint.PendingWrite) bool { return w.Channel == cachedChannel })
}
