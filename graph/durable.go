package graph

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/stategraph/stategraph/checkpoint"
)

// durableChannel is the channel of the pending write that keeps a result
// of Durable. Like every name starting and ending with "__"
// (checkpoint.IsReserved), it can never be a state field: the schema
// refuses field names starting with "__".
const durableChannel = "__durable__"

// Durable results are pending writes with negative indices (so that they
// never mark their task finished, see checkpoint.FinishedTasks), one per
// key, below the runtime's own special indices: -durableIndexBase and
// down, spread over durableIndexSpan values by a hash of the key. Two keys
// of a task whose hashes meet take the next free index; a write is read
// back by the key it holds, never by its index.
const (
	durableIndexBase = 16
	durableIndexSpan = 1 << 30
)

// Durable runs fn once per key for the task the node runs as, and keeps
// its result (LangGraph's functional-API task inside a node). The first
// time the task calls Durable with key, fn runs and its result is saved at
// once as a pending write of the task, so it survives a crash or a failure
// of the rest of the node. When the same task runs again — a retry of
// WithRetry, a resume after a crash, an error or an interrupt — Durable
// returns the saved result, decoded with the graph's Serializer, without
// calling fn.
//
// An error of fn is returned and not saved: the next call with the key
// runs fn again. Calls with different keys may run concurrently from
// goroutines the node starts; a call with a key another call is running
// waits for it and returns its result. A key names a result within its
// task only: other tasks (and the task's later steps) have their own.
// The saved results go with the task's other pending writes once the
// step's checkpoint is stored, as LangGraph's do; a replay from a past
// checkpoint (a fork) runs fn again.
//
// Without a checkpointer, or outside a node, fn simply runs. Under
// DurabilityExit a result is saved when the run ends, with the task's
// other writes: a failure keeps it, a crash of the process loses it.
func Durable[T any](ctx context.Context, key string, fn func(context.Context) (T, error)) (T, error) {
	sc := scopeOf(ctx)
	if sc == nil || sc.parent == nil || sc.parent.store == nil {
		return fn(ctx)
	}
	store := sc.parent.store
	ds, err := sc.durableOf(store)
	if err != nil {
		var zero T
		return zero, err
	}
	return once(ctx, sc, ds, store.serializer(), key, "Durable", func() (T, error) {
		return runDurable(ctx, sc, store, ds, key, fn)
	})
}

// once returns the saved result of the task's call key (Durable's or
// Transact's, what names it in errors), or runs run for it: one call of a
// key runs at a time, and the others wait for its result.
func once[T any](ctx context.Context, sc *taskScope, ds *durableState, ser checkpoint.Serializer, key, what string, run func() (T, error)) (T, error) {
	for {
		ds.mu.Lock()
		if data, ok := ds.saved[key]; ok {
			ds.mu.Unlock()
			var rec durableRecord[T]
			if err := ser.Unmarshal(data, &rec); err != nil {
				return rec.Value, fmt.Errorf("graph: node %q, step %d: the saved result of %s %q does not decode as %T: %w", sc.node, sc.step, what, key, rec.Value, err)
			}
			return rec.Value, nil
		}
		if c := ds.running[key]; c != nil {
			ds.mu.Unlock()
			select {
			case <-c:
				continue // saved now, or failed: then this call runs
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
		}
		done := make(chan struct{})
		ds.running[key] = done
		ds.mu.Unlock()
		v, err := run()
		ds.mu.Lock()
		delete(ds.running, key)
		close(done)
		ds.mu.Unlock()
		return v, err
	}
}

// runDurable calls fn for key and saves its result.
func runDurable[T any](ctx context.Context, sc *taskScope, store durableStore, ds *durableState, key string, fn func(context.Context) (T, error)) (T, error) {
	v, err := fn(ctx)
	if err != nil {
		return v, err
	}
	data, err := store.serializer().Marshal(durableRecord[T]{Key: key, Value: v})
	if err != nil {
		return v, fmt.Errorf("graph: node %q, step %d: encode the result of Durable %q: %w", sc.node, sc.step, key, err)
	}
	ds.mu.Lock()
	idx := ds.index(key)
	ds.mu.Unlock()
	w := checkpoint.PendingWrite{TaskID: sc.taskID, Index: idx, Channel: durableChannel, Value: data}
	if err := store.putDurable(sc.taskID, w); err != nil {
		return v, fmt.Errorf("graph: node %q, step %d: save the result of Durable %q: %w", sc.node, sc.step, key, err)
	}
	ds.mu.Lock()
	ds.saved[key] = data
	ds.mu.Unlock()
	return v, nil
}

// durableRecord is the value of a durableChannel write.
type durableRecord[T any] struct {
	Key   string `json:"key"`
	Value T      `json:"value"`
}

// durableState is a task's Durable results: those saved, by key, the
// indices their writes take, and the calls running. restored are the
// writes of earlier runs, read into the maps on first use.
type durableState struct {
	restored []checkpoint.PendingWrite
	ready    bool // the maps are made (guarded by taskExt.durMu)

	mu      sync.Mutex
	saved   map[string][]byte // the records, as stored
	used    map[int]string    // the key of each index taken
	running map[string]chan struct{}
}

// index returns the index of key's write: its hash's, or the next free
// one. ds.mu is held.
func (ds *durableState) index(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	off := int(h.Sum32() % durableIndexSpan)
	for {
		idx := -(durableIndexBase + off)
		if k, taken := ds.used[idx]; !taken || k == key {
			ds.used[idx] = key
			return idx
		}
		off = (off + 1) % durableIndexSpan
	}
}

// durableStore saves a task's Durable results: the run's persist.
type durableStore interface {
	putDurable(taskID string, w checkpoint.PendingWrite) error
	serializer() checkpoint.Serializer
}

func (p *persist[S]) putDurable(taskID string, w checkpoint.PendingWrite) error {
	if p.id == "" || taskID == "" {
		return nil
	}
	return p.putWrites(taskID, []checkpoint.PendingWrite{w})
}

func (p *persist[S]) serializer() checkpoint.Serializer { return p.r.c.ser }

// durableOf returns the task's Durable state, ready on first use with the
// results its earlier runs saved.
func (ti *taskInfo) durableOf(store durableStore) (*durableState, error) {
	e := ti.extOf()
	e.durMu.Lock()
	defer e.durMu.Unlock()
	ds := e.durable
	if ds == nil {
		ds = &durableState{}
		e.durable = ds
	}
	if ds.ready {
		return ds, nil
	}
	ds.saved, ds.used, ds.running = map[string][]byte{}, map[int]string{}, map[string]chan struct{}{}
	ser := store.serializer()
	for _, w := range ds.restored {
		var head struct {
			Key string `json:"key"`
		}
		if err := ser.Unmarshal(w.Value, &head); err != nil {
			return nil, fmt.Errorf("graph: node %q, step %d: a saved result of Durable (write %d of task %q): %w: %w", ti.node, ti.step, w.Index, ti.taskID, checkpoint.ErrCorrupt, err)
		}
		ds.saved[head.Key] = w.Value
		ds.used[w.Index] = head.Key
	}
	ds.restored, ds.ready = nil, true
	return ds, nil
}

// durableWrites returns the durableChannel writes among ws.
func durableWrites(ws []checkpoint.PendingWrite) []checkpoint.PendingWrite {
	var out []checkpoint.PendingWrite
	for _, w := range ws {
		if w.Channel == durableChannel {
			out = append(out, w)
		}
	}
	return out
}
