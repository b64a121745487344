package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// History yields the thread's snapshots, newest first, reading them
// lazily page by page. WithFilter, WithBefore and WithLimit narrow it;
// WithNamespace lists a subgraph's checkpoints instead (LangGraph's
// get_state_history with a checkpoint_ns).
//
// A checkpoint's field that the snapshot yielded just before (its child)
// can rebuild is not decoded, and the saver is told it need not read it
// (checkpoint.ListOptions.SkipValue): a field whose version the child
// kept is the child's value, and an append field that the child extended
// by a delta is a prefix of the child's. A saver that reads it anyway
// costs only the read. Snapshots therefore share the elements of such
// fields: a caller may reassign, cut or append to a snapshot's fields
// (the older snapshots do not change), but must copy a slice before it
// changes its elements in place.
func (c *Compiled[S]) History(ctx context.Context, opts ...HistoryOption) iter.Seq2[*Snapshot[S], error] {
	return func(yield func(*Snapshot[S], error) bool) {
		o := historyOptionsOf(opts)
		if c.saver == nil {
			yield(nil, errors.New("graph: History needs a checkpointer (graph.WithCheckpointer)"))
			return
		}
		if o.thread == "" {
			yield(nil, ErrThreadRequired)
			return
		}
		saver := c.saver
		if o.ns != "" {
			sub, err := c.subgraphAt(o.ns)
			if err != nil {
				yield(nil, fmt.Errorf("graph: thread %q: history: %w", o.thread, err))
				return
			}
			sub.history(ctx, saver, o)(yield)
			return
		}
		c.history(ctx, saver, o)(yield)
	}
}

// history is History on the checkpoints of saver: c's own, or, for a
// subgraph, its parent's.
func (c *Compiled[S]) history(ctx context.Context, saver checkpoint.Saver, o historyOptions) iter.Seq2[*Snapshot[S], error] {
	return func(yield func(*Snapshot[S], error) bool) {
		sk := newHistorySkip(c, o.thread, o.ns)
		lo := checkpoint.ListOptions{Filter: o.filter, Before: o.before, Limit: o.limit, SkipValue: sk.skip}
		cfg := checkpoint.Config{ThreadID: o.thread, Namespace: o.ns}
		var prev *Snapshot[S]     // &prevSnap once a snapshot was yielded
		var prevSnap Snapshot[S]  // the last one yielded, as it was yielded
		var from reuseFrom[S]     // prev, when it is the child of the checkpoint being decoded
		d := new(decoded[S])      // every checkpoint is decoded into it, in turn
		var schedules schedMemo   // the schedules parsed, as a loop repeats them
		var diff []state.Write[S] // fillResult's memory
		for tup, err := range saver.List(ctx, cfg, lo) {
			if err != nil {
				yield(nil, fmt.Errorf("graph: thread %q: history: %w", o.thread, err))
				return
			}
			do := decodeOptions[S]{view: true, schedules: &schedules}
			if prev == nil && sk.firstID != "" && sk.firstID == tup.Config.CheckpointID {
				do.cached = &sk.first
			}
			if prev != nil && prev.Parent != nil && prev.Parent.CheckpointID == tup.Config.CheckpointID {
				do.reuse = &from
			}
			err := c.decodeInto(d, tup, cfg, do)
			var snap *Snapshot[S]
			if err == nil {
				snap, err = c.snapshot(d, false)
			}
			if err == nil {
				c.fillResult(snap, prev, &diff)
			}
			var kept Snapshot[S]
			if snap != nil {
				// What the older checkpoints are rebuilt from: a copy, so
				// that a caller who changes the snapshot it is given (a
				// field reassigned or cut) changes nothing of them.
				kept = *snap
			}
			if !yield(snap, err) || err != nil {
				return
			}
			prevSnap = kept
			prev = &prevSnap
			from = reuseFrom[S]{child: prev, versions: tup.Checkpoint.Versions}
		}
	}
}

// reusable reports whether field i of a checkpoint, at version v, can be
// taken from the decoded state of its child checkpoint, where the field
// is at version cv: the same version is the same value, and an append
// field the child stored as a delta extends the value before it, so that
// value is a prefix of the child's.
func (c *Compiled[S]) reusable(i int, v, cv string) bool {
	if cv == v {
		return true
	}
	if c.schema.Kind(i) != state.KindAppend {
		return false
	}
	_, _, ok := parseAppendVersion(v)
	_, delta, cok := parseAppendVersion(cv)
	return ok && cok && delta
}

// reuseFrom is the child checkpoint History decoded just before the
// checkpoint it decodes now: its snapshot and its fields' versions.
type reuseFrom[S any] struct {
	child    *Snapshot[S]
	versions map[string]string
}

// reuseField fills field i of st, a checkpoint's state where the field is
// at version v, from the child's state instead of decoding it, when
// reusable says it can: the same value, or a prefix of the child's value
// (shared, capacity capped). It reports false when it did not (and then a
// prefix longer than the child's value means the stored data is
// inconsistent).
func (c *Compiled[S]) reuseField(from *reuseFrom[S], st *S, i int, v string) bool {
	sc := c.schema
	cv := from.versions[sc.Name(i)]
	if !c.reusable(i, v, cv) {
		return false
	}
	if cv == v {
		sc.CopyField(st, &from.child.Values, i)
		return true
	}
	n, _, _ := parseAppendVersion(v)
	return sc.CopyPrefix(st, &from.child.Values, i, n)
}

// historySkip is History's checkpoint.ListOptions.SkipValue. List asks it
// about the checkpoints in the order it yields them, possibly a page
// ahead of the loop that decodes them, so it keeps its own account of the
// checkpoint asked about before (the one History will have yielded just
// before) instead of reading the loop's: a field is skipped when
// reuseField will rebuild it from that checkpoint's snapshot. Both
// checkpoints must be of this schema's version: one stored by an older
// schema is migrated from all its values, and its child's reuser is not
// used. The first checkpoint asked about has none before it, but when
// the state cache holds its state (the thread's head, which this process
// saved), every field of it is skipped and the state taken, once, from
// the cache: the loop decodes it from that copy (first), so a run that
// replaces the cache entry meanwhile leaves it nothing short.
type historySkip[S any] struct {
	c   *Compiled[S]
	key string // the state cache's key of the thread
	// The checkpoint asked about now and the one before it: id, parent id,
	// whether it is of this schema's version, and the version of each
	// field, by index ("" when it has none).
	cur, prev skipped
	// first is the cached state of the first checkpoint asked about,
	// firstID its id ("" when it was not cached). They are set by the
	// first call, before List yields that checkpoint, and never again.
	firstID string
	first   S
}

type skipped struct {
	id, parent string
	current    bool
	versions   []string
}

func newHistorySkip[S any](c *Compiled[S], thread, ns string) *historySkip[S] {
	n := c.schema.Len()
	return &historySkip[S]{c: c, key: cacheKey(thread, ns), cur: skipped{versions: make([]string, n)}, prev: skipped{versions: make([]string, n)}}
}

// skip is the SkipValue.
func (h *historySkip[S]) skip(t *checkpoint.Tuple, channel string) bool {
	if t.Checkpoint.ID != h.cur.id {
		h.prev, h.cur = h.cur, h.prev
		h.see(t)
		if h.prev.id == "" && h.cur.current {
			if st, ok := h.c.cache.get(h.key, h.cur.id); ok {
				h.firstID, h.first = h.cur.id, st
			}
		}
	}
	if h.cur.id == h.firstID {
		return true // the cached state has every field
	}
	if !h.cur.current || !h.prev.current || h.prev.parent != h.cur.id {
		return false
	}
	i := h.c.schema.Index(channel)
	if i < 0 {
		return true // a field this schema does not have: decode ignores it
	}
	return h.c.reusable(i, h.cur.versions[i], h.prev.versions[i])
}

// see makes t the checkpoint asked about now. The strings it keeps are
// immutable; t itself is not kept.
func (h *historySkip[S]) see(t *checkpoint.Tuple) {
	sc := h.c.schema
	h.cur.id = t.Checkpoint.ID
	h.cur.parent = ""
	if t.Parent != nil {
		h.cur.parent = t.Parent.CheckpointID
	}
	v, err := storedSchemaVersion(t.Metadata)
	h.cur.current = err == nil && v == sc.Version()
	for i := range h.cur.versions {
		h.cur.versions[i] = t.Checkpoint.Versions[sc.Name(i)]
	}
}

// fillResult sets the Result of the only task of snap's step from child,
// the next checkpoint, when child applied that task's writes alone.
func (c *Compiled[S]) fillResult(snap, child *Snapshot[S], scratch *[]state.Write[S]) {
	if child == nil || child.Parent == nil || child.Parent.CheckpointID != snap.Config.CheckpointID || len(snap.Tasks) != 1 {
		return
	}
	t := &snap.Tasks[0]
	if t.Result != nil || t.Error != "" || len(t.Interrupts) > 0 || t.Node == Start ||
		child.Metadata.Source != checkpoint.SourceLoop || len(child.Metadata.Nodes) != 1 || child.Metadata.Nodes[0] != t.Node {
		return
	}
	*scratch = c.schema.AppendDiff((*scratch)[:0], &snap.Values, &child.Values)
	t.Result = resultOf(*scratch)
	clear(*scratch)
}
