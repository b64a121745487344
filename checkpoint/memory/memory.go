package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// Saver is an in-memory checkpoint.Saver. The zero value is not usable;
// call New.
type Saver struct {
	mu      sync.RWMutex
	threads map[string]*thread
	leases  leases // thread leases (checkpoint.Leaser), under their own lock
}

// thread holds a thread's namespaces.
type thread struct {
	spaces map[string]*space
}

// space holds the checkpoints of one (thread, namespace) in id order, and
// the blobs they refer to.
type space struct {
	records []*record // ascending by id; the last is the head
	blobs   map[blobKey]*entry
}

type blobKey struct {
	channel, version string
}

// entry is a stored blob, linked to the entry its delta extends, so that
// rebuilding a value walks pointers, not the map. Entries are immutable.
type entry struct {
	blob  checkpoint.Blob
	base  *entry // the blob a delta extends; nil for a snapshot
	depth int    // deltas from the snapshot: 0 for a snapshot
	// broken is set when a delta's base was not stored; Get reports
	// ErrCorrupt.
	broken bool
}

// channel is a channel of a checkpoint with its stored value.
type channel struct {
	name, version string
	entry         *entry // nil if no blob was stored for the version
}

// record is one stored checkpoint. Everything but writes and pruned is
// immutable once stored; writes is replaced, never modified in place,
// under the lock.
type record struct {
	id        string
	parent    string
	createdAt time.Time
	channels  []channel
	metadata  checkpoint.Metadata
	writes    []checkpoint.PendingWrite // ordered by task id, then index
	pruned    bool
}

var (
	_ checkpoint.Saver  = (*Saver)(nil)
	_ checkpoint.Copier = (*Saver)(nil)
	_ checkpoint.Pruner = (*Saver)(nil)
)

// New returns an empty Saver.
func New(opts ...Option) *Saver {
	s := &Saver{threads: map[string]*thread{}}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// space returns the (thread, namespace) space, or nil. Callers hold mu.
func (s *Saver) space(threadID, ns string) *space {
	th := s.threads[threadID]
	if th == nil {
		return nil
	}
	return th.spaces[ns]
}

// find returns the index of the checkpoint id in sp, or -1.
func (sp *space) find(id string) int {
	i, ok := slices.BinarySearchFunc(sp.records, id, func(r *record, id string) int { return strings.Compare(r.id, id) })
	if !ok {
		return -1
	}
	return i
}

// head returns the id of the newest checkpoint, or "".
func (sp *space) head() string {
	if sp == nil || len(sp.records) == 0 {
		return ""
	}
	return sp.records[len(sp.records)-1].id
}

// Put stores a checkpoint and its new blobs if the head of its thread and
// namespace is req.ExpectHead; otherwise it returns checkpoint.ErrConflict
// and stores nothing.
func (s *Saver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	cfg := req.Config
	cp := req.Checkpoint
	if err := ctx.Err(); err != nil {
		return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	}
	if cp.ID == "" {
		return checkpoint.Config{}, fmt.Errorf("memory: put on thread %q ns %q: checkpoint has no id", cfg.ThreadID, cfg.Namespace)
	}
	for ch, b := range cp.New {
		if b.Version == "" && cp.Versions[ch] == "" {
			return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: the blob of channel %q has no version, and the checkpoint none for the channel",
				cp.ID, cfg.ThreadID, cfg.Namespace, ch)
		}
	}
	md, err := normalizeMetadata(req.Metadata)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: metadata: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	}
	rec := &record{
		id:        cp.ID,
		parent:    cfg.CheckpointID,
		createdAt: cp.CreatedAt,
		channels:  make([]channel, 0, len(cp.Versions)),
		metadata:  md, // the saver owns it now (see checkpoint.Saver)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(ctx, cfg.ThreadID); err != nil {
		return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	}
	th := s.threads[cfg.ThreadID]
	var sp *space
	if th != nil {
		sp = th.spaces[cfg.Namespace]
	}
	if head := sp.head(); head != req.ExpectHead {
		return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: head is %q, expected %q: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, head, req.ExpectHead, checkpoint.ErrConflict)
	}
	if head := sp.head(); head != "" && cp.ID <= head {
		// Made by another process's clock, or already stored: the head
		// decides the order, so a new checkpoint must sort after it.
		return checkpoint.Config{}, fmt.Errorf("memory: put checkpoint %s on thread %q ns %q: the id does not sort after the head %q: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, head, checkpoint.ErrConflict)
	}
	if th == nil {
		th = &thread{spaces: map[string]*space{}}
		s.threads[cfg.ThreadID] = th
	}
	if sp == nil {
		sp = &space{blobs: make(map[blobKey]*entry, len(cp.New))}
		th.spaces[cfg.Namespace] = sp
	}
	// The new entries in one allocation: they live as long as the
	// longest-lived of them, a few bytes each.
	batch := make([]entry, 0, len(cp.New))
	for ch, b := range cp.New {
		if b.Version == "" {
			b.Version = cp.Versions[ch]
		}
		k := blobKey{ch, b.Version}
		if _, ok := sp.blobs[k]; !ok {
			batch = append(batch, sp.newEntry(ch, b))
			sp.blobs[k] = &batch[len(batch)-1] // within capacity: never moved
		}
	}
	for ch, v := range cp.Versions {
		rec.channels = append(rec.channels, channel{name: ch, version: v, entry: sp.blobs[blobKey{ch, v}]})
	}
	sp.records = append(sp.records, rec) // its id sorts after the head's
	return checkpoint.Config{ThreadID: cfg.ThreadID, Namespace: cfg.Namespace, CheckpointID: cp.ID}, nil
}

// PutWrites stores a task's writes against the checkpoint named by cfg:
// checkpoint.ErrNotFound if there is none, or if cfg.CheckpointID is
// empty. A write with a non-negative
// index is kept once; one with a negative index replaces an earlier one.
func (s *Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: put writes of task %q on thread %q ns %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkFence(ctx, cfg.ThreadID); err != nil {
		return fmt.Errorf("memory: put writes of task %q on thread %q ns %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err)
	}
	var rec *record
	if cfg.CheckpointID != "" { // writes go to a named checkpoint, never "the latest"
		rec = s.record(cfg)
	}
	if rec == nil {
		return fmt.Errorf("memory: put writes of task %q: thread %q ns %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
	}
	if len(writes) == 0 {
		return nil
	}
	// Copy on write: Lists in flight may hold the old slice.
	merged := make([]checkpoint.PendingWrite, len(rec.writes), len(rec.writes)+len(writes))
	copy(merged, rec.writes)
	for _, w := range writes {
		w.TaskID = taskID
		i, found := slices.BinarySearchFunc(merged, w, compareWrites)
		switch {
		case !found:
			merged = slices.Insert(merged, i, w)
		case w.Index < 0:
			merged[i] = w
		}
	}
	rec.writes = merged
	return nil
}

func compareWrites(a, b checkpoint.PendingWrite) int {
	if c := strings.Compare(a.TaskID, b.TaskID); c != 0 {
		return c
	}
	return a.Index - b.Index
}

// record returns the checkpoint named by cfg (the head when its id is
// empty), or nil. Callers hold mu.
func (s *Saver) record(cfg checkpoint.Config) *record {
	sp := s.space(cfg.ThreadID, cfg.Namespace)
	if sp == nil || len(sp.records) == 0 {
		return nil
	}
	if head := sp.records[len(sp.records)-1]; cfg.CheckpointID == "" || cfg.CheckpointID == head.id {
		return head
	}
	i := sp.find(cfg.CheckpointID)
	if i < 0 {
		return nil
	}
	return sp.records[i]
}

// Get returns the checkpoint named by cfg, or the latest of its thread and
// namespace when cfg.CheckpointID is empty.
func (s *Saver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: get thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec := s.record(cfg)
	if rec == nil {
		return nil, fmt.Errorf("memory: get thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
	}
	return tuple(cfg.ThreadID, cfg.Namespace, rec, rec.writes, nil)
}

// GetHead is Get without the values of the state's fields: only the
// reserved channels' (checkpoint.HeadGetter).
func (s *Saver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: get head thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec := s.record(cfg)
	if rec == nil {
		return nil, fmt.Errorf("memory: get head thread %q ns %q checkpoint %q: %w", cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
	}
	return tuple(cfg.ThreadID, cfg.Namespace, rec, rec.writes, skipFields)
}

// newEntry links blob b of channel ch to the entry its delta extends.
func (sp *space) newEntry(ch string, b checkpoint.Blob) entry {
	e := entry{blob: b}
	if !b.Delta || b.Base == "" {
		return e
	}
	base := sp.blobs[blobKey{ch, b.Base}]
	if base == nil {
		e.broken = true
		return e
	}
	e.base, e.depth = base, base.depth+1
	return e
}

// skipFields is the skip of GetHead: every state field's value.
func skipFields(*checkpoint.Tuple, string) bool { return true }

// tuple builds the tuple of rec with writes as its pending writes,
// leaving out the values of the channels skip returns true for (a
// checkpoint.ListOptions.SkipValue, asked once per non-reserved channel
// before any value is read; nil reads them all). Everything of rec it
// reads but writes and pruned is immutable, so a caller that took writes
// under mu may call it without: List does, as skip is the caller's code.
func tuple(threadID, ns string, rec *record, writes []checkpoint.PendingWrite, skip func(*checkpoint.Tuple, string) bool) (*checkpoint.Tuple, error) {
	versions := make(map[string]string, len(rec.channels))
	for _, ch := range rec.channels {
		versions[ch.name] = ch.version
	}
	m := new(tupleMemory) // the tuple and its parent's config in one allocation
	tup := &m.tup
	*tup = checkpoint.Tuple{
		Config: checkpoint.Config{ThreadID: threadID, Namespace: ns, CheckpointID: rec.id},
		Checkpoint: checkpoint.Checkpoint{
			ID:        rec.id,
			CreatedAt: rec.createdAt,
			Versions:  versions,
		},
		Metadata: cloneMetadata(rec.metadata),
	}
	if rec.parent != "" {
		m.parent = checkpoint.Config{ThreadID: threadID, Namespace: ns, CheckpointID: rec.parent}
		tup.Parent = &m.parent
	}
	values := make(map[string]checkpoint.Value, len(rec.channels))
	for _, ch := range rec.channels {
		if skip != nil && !checkpoint.IsReserved(ch.name) && skip(tup, ch.name) {
			continue
		}
		val, err := ch.value()
		if err != nil {
			return nil, fmt.Errorf("memory: thread %q ns %q checkpoint %s: %w", threadID, ns, rec.id, err)
		}
		values[ch.name] = val
	}
	tup.Checkpoint.Values = values
	tup.PendingWrites = slices.Clone(writes)
	return tup, nil
}

// tupleMemory is a tuple with its parent's config.
type tupleMemory struct {
	tup    checkpoint.Tuple
	parent checkpoint.Config
}

// value rebuilds the channel's value: the newest snapshot at or before its
// version, then the deltas after that snapshot, oldest first.
func (ch channel) value() (checkpoint.Value, error) {
	e := ch.entry
	if e == nil {
		return checkpoint.Value{}, fmt.Errorf("channel %q version %q: no blob: %w", ch.name, ch.version, checkpoint.ErrCorrupt)
	}
	if !e.blob.Delta {
		return checkpoint.Value{Version: ch.version, Snapshot: e.blob.Data}, nil
	}
	deltas := make([][]byte, e.depth+1)
	for i := e.depth; ; i-- {
		if e.broken {
			return checkpoint.Value{}, fmt.Errorf("channel %q version %q: no blob for base %q: %w", ch.name, e.blob.Version, e.blob.Base, checkpoint.ErrCorrupt)
		}
		if !e.blob.Delta {
			return checkpoint.Value{Version: ch.version, Snapshot: e.blob.Data, Deltas: deltas[1:]}, nil
		}
		deltas[i] = e.blob.Data
		if e.base == nil { // a delta of nothing
			return checkpoint.Value{Version: ch.version, Deltas: deltas}, nil
		}
		e = e.base
	}
}

// normalizeMetadata gives md's Extra the shape a JSON round trip gives it
// (as the other savers store it), so that the values a tuple returns can
// be copied deeply: only maps, slices and scalars of JSON remain.
func normalizeMetadata(md checkpoint.Metadata) (checkpoint.Metadata, error) {
	if len(md.Extra) == 0 {
		return md, nil
	}
	b, err := json.Marshal(md.Extra)
	if err != nil {
		return md, err
	}
	var extra map[string]any
	if err := json.Unmarshal(b, &extra); err != nil {
		return md, err
	}
	md.Extra = extra
	return md, nil
}

// cloneMetadata copies the maps and slices of md, those nested in Extra
// included: a tuple's metadata is the caller's.
func cloneMetadata(md checkpoint.Metadata) checkpoint.Metadata {
	md.Parents = maps.Clone(md.Parents)
	md.Nodes = slices.Clone(md.Nodes)
	if md.Extra != nil {
		md.Extra = cloneJSON(md.Extra).(map[string]any)
	}
	return md
}

// cloneJSON deeply copies a value decoded from JSON.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	default:
		return v // string, float64, bool, nil: immutable
	}
}
