package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// Snapshot is a thread's state at one checkpoint.
type Snapshot[S any] struct {
	// Values is the state. For the latest checkpoint it includes the
	// writes of the tasks that already finished in the pending step; for
	// a pinned checkpoint it is the state as saved.
	Values S
	// Next lists the nodes that run next (tasks not yet finished), in
	// task order.
	Next []string
	// Config addresses this checkpoint; Parent the one before it.
	Config    checkpoint.Config
	Parent    *checkpoint.Config
	Metadata  checkpoint.Metadata
	CreatedAt time.Time
	// Tasks are the tasks of the pending step, with their errors and
	// interrupts.
	Tasks []TaskInfo
	// Interrupts are the pending interrupts of all tasks.
	Interrupts []Interruption
}

// TaskInfo is a task of the pending step of a checkpoint.
type TaskInfo struct {
	ID         string
	Node       string
	Done       bool   // its writes are saved; resuming will not run it
	Error      string // the error it failed with, if it failed
	Interrupts []Interruption
}

// WithFilter keeps, in History, checkpoints whose metadata has these
// values ("source", "step", "run_id" or user metadata keys).
func WithFilter(md map[string]any) RunOption { return func(o *runOptions) { o.filter = md } }

// WithBefore keeps, in History, checkpoints older than the given id.
func WithBefore(checkpointID string) RunOption {
	return func(o *runOptions) { o.before = checkpointID }
}

// WithLimit caps the number of checkpoints History yields.
func WithLimit(n int) RunOption { return func(o *runOptions) { o.historyLimit = n } }

// State returns the thread's latest snapshot, or the one pinned with
// WithCheckpoint. An unknown thread or checkpoint is checkpoint.ErrNotFound.
func (c *Compiled[S]) State(ctx context.Context, opts ...RunOption) (*Snapshot[S], error) {
	o := c.options(opts)
	if c.saver == nil {
		return nil, errors.New("graph: State needs a checkpointer (graph.WithCheckpointer)")
	}
	if o.thread == "" {
		return nil, ErrThreadRequired
	}
	cfg := checkpoint.Config{ThreadID: o.thread, CheckpointID: o.checkpointID}
	tup, err := c.saver.Get(ctx, cfg)
	if err != nil {
		if o.checkpointID != "" {
			return nil, fmt.Errorf("graph: thread %q: checkpoint %q: %w", o.thread, o.checkpointID, err)
		}
		return nil, fmt.Errorf("graph: thread %q: %w", o.thread, err)
	}
	return c.snapshot(ctx, o, tup, o.checkpointID == "")
}

// History yields the thread's snapshots, newest first, reading them
// lazily page by page. WithFilter, WithBefore and WithLimit narrow it.
func (c *Compiled[S]) History(ctx context.Context, opts ...RunOption) iter.Seq2[*Snapshot[S], error] {
	return func(yield func(*Snapshot[S], error) bool) {
		o := c.options(opts)
		if c.saver == nil {
			yield(nil, errors.New("graph: History needs a checkpointer (graph.WithCheckpointer)"))
			return
		}
		if o.thread == "" {
			yield(nil, ErrThreadRequired)
			return
		}
		lo := checkpoint.ListOptions{Filter: o.filter, Before: o.before, Limit: o.historyLimit}
		var prev *Snapshot[S]
		var prevVersions map[string]string
		for tup, err := range c.saver.List(ctx, checkpoint.Config{ThreadID: o.thread}, lo) {
			if err != nil {
				yield(nil, fmt.Errorf("graph: thread %q: history: %w", o.thread, err))
				return
			}
			var reuse func(st *S, i int, v string) bool
			if prev != nil && prev.Parent != nil && prev.Parent.CheckpointID == tup.Config.CheckpointID {
				reuse = c.reuser(prev, prevVersions)
			}
			snap, err := c.snapshotWith(ctx, o, tup, false, reuse)
			if !yield(snap, err) || err != nil {
				return
			}
			prev, prevVersions = snap, tup.Checkpoint.Versions
		}
	}
}

// reuser returns a History helper that fills a field of the parent of
// child from child's decoded state instead of decoding it: the same value
// when the field's version did not change, or a prefix of child's value
// for an append field that child extended by a delta.
func (c *Compiled[S]) reuser(child *Snapshot[S], childVersions map[string]string) func(st *S, i int, v string) bool {
	sc := c.schema
	return func(st *S, i int, v string) bool {
		cv := childVersions[sc.Name(i)]
		if cv == v {
			sc.CopyField(st, &child.Values, i)
			return true
		}
		if sc.Kind(i) != state.KindAppend {
			return false
		}
		n, _, ok := parseAppendVersion(v)
		_, delta, cok := parseAppendVersion(cv)
		return ok && cok && delta && sc.CopyPrefix(st, &child.Values, i, n)
	}
}

// inspector builds a run over a saved checkpoint without running it.
func (c *Compiled[S]) inspector(ctx context.Context, o runOptions, tup *checkpoint.Tuple) (*run[S], error) {
	return c.inspectorWith(ctx, o, tup, nil)
}

func (c *Compiled[S]) inspectorWith(ctx context.Context, o runOptions, tup *checkpoint.Tuple, reuse func(st *S, i int, v string) bool) (*run[S], error) {
	r := &run[S]{c: c, o: o, applier: c.schema.NewApplier(), scratch: make([]bool, c.schema.Len())}
	r.ctx, r.cancel = ctx, func(error) {} // it runs nothing: there is nothing to cancel
	r.next.joins = make([][]bool, len(c.joins))
	for i, j := range c.joins {
		r.next.joins[i] = make([]bool, len(j.srcs))
	}
	r.next.marked = make([]bool, len(c.nodes))
	r.cp = newPersist(r, c.saver)
	r.cp.reuse = reuse
	if err := r.cp.restore(tup); err != nil {
		r.cancel(nil)
		return nil, err
	}
	r.step = tup.Metadata.Step + 1
	return r, nil
}

func (c *Compiled[S]) snapshot(ctx context.Context, o runOptions, tup *checkpoint.Tuple, applyPending bool) (*Snapshot[S], error) {
	return c.snapshotWith(ctx, o, tup, applyPending, nil)
}

func (c *Compiled[S]) snapshotWith(ctx context.Context, o runOptions, tup *checkpoint.Tuple, applyPending bool, reuse func(st *S, i int, v string) bool) (*Snapshot[S], error) {
	r, err := c.inspectorWith(ctx, o, tup, reuse)
	if err != nil {
		return nil, err
	}
	defer r.cancel(nil)
	snap := &Snapshot[S]{
		Config:    tup.Config,
		Parent:    tup.Parent,
		Metadata:  tup.Metadata,
		CreatedAt: tup.Checkpoint.CreatedAt,
	}
	r.cp.pending = groupPending(tup.PendingWrites)
	pending := r.cp.pending
	r.prepare()
	for _, t := range r.tasks {
		info := TaskInfo{ID: t.id, Node: t.name, Done: t.cached}
		for _, w := range pending[t.id] {
			switch w.Channel {
			case checkpoint.ErrorChannel:
				var te taskError
				if json.Unmarshal(w.Value, &te) == nil {
					info.Error = te.Error
				} else {
					info.Error = string(w.Value)
				}
			case checkpoint.InterruptChannel:
				var ints []Interruption
				if err := json.Unmarshal(w.Value, &ints); err != nil {
					return nil, fmt.Errorf("graph: thread %q: checkpoint %q: interrupt of task %q: %w: %w", tup.Config.ThreadID, tup.Config.CheckpointID, t.id, checkpoint.ErrCorrupt, err)
				}
				info.Interrupts = ints
				snap.Interrupts = append(snap.Interrupts, ints...)
			}
		}
		if t.cached && applyPending {
			if err := r.applier.Add(t.name, t.update.Writes); err != nil {
				return nil, err
			}
		}
		if !t.cached || !applyPending {
			snap.Next = append(snap.Next, t.name)
		}
		snap.Tasks = append(snap.Tasks, info)
	}
	if applyPending {
		if _, err := r.applier.Apply(&r.st, true); err != nil {
			return nil, fmt.Errorf("graph: thread %q: pending writes: %w", tup.Config.ThreadID, err)
		}
	}
	snap.Values = r.st
	return snap, nil
}

// UpdateState writes update to the thread as if node asNode had returned
// it: the writes go through the reducers, asNode's edges decide what runs
// next, and an "update" checkpoint is saved. With asNode "" the pending
// tasks stay as they were (a pure edit of values). Pinned with
// WithCheckpoint, the update forks the thread from that checkpoint. It
// returns the new checkpoint's config.
func (c *Compiled[S]) UpdateState(ctx context.Context, update state.Update[S], asNode string, opts ...RunOption) (checkpoint.Config, error) {
	o := c.options(opts)
	if c.saver == nil {
		return checkpoint.Config{}, errors.New("graph: UpdateState needs a checkpointer (graph.WithCheckpointer)")
	}
	if o.thread == "" {
		return checkpoint.Config{}, ErrThreadRequired
	}
	if asNode != "" && asNode != Start && c.nodes[asNode] == nil {
		return checkpoint.Config{}, fmt.Errorf("graph: UpdateState as unknown node %q", asNode)
	}
	release, err := c.threads.acquire(ctx, o.thread, o.wait)
	if err != nil {
		return checkpoint.Config{}, err
	}
	defer release()
	base := checkpoint.Config{ThreadID: o.thread}
	latest, err := c.saver.Get(ctx, base)
	if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
		return checkpoint.Config{}, fmt.Errorf("graph: thread %q: %w", o.thread, err)
	}
	tup := latest
	if o.checkpointID != "" {
		base.CheckpointID = o.checkpointID
		if tup, err = c.saver.Get(ctx, base); err != nil {
			return checkpoint.Config{}, fmt.Errorf("graph: thread %q: checkpoint %q: %w", o.thread, o.checkpointID, err)
		}
	}
	var r *run[S]
	step := -1
	if tup == nil {
		r = &run[S]{c: c, o: o, applier: c.schema.NewApplier(), scratch: make([]bool, c.schema.Len())}
		r.ctx, r.cancel = context.WithCancelCause(ctx)
		r.next.joins = make([][]bool, len(c.joins))
		for i, j := range c.joins {
			r.next.joins[i] = make([]bool, len(j.srcs))
		}
		r.next.marked = make([]bool, len(c.nodes))
		r.cp = newPersist(r, c.saver)
	} else {
		if r, err = c.inspector(ctx, o, tup); err != nil {
			return checkpoint.Config{}, err
		}
		step = tup.Metadata.Step + 1
	}
	defer r.cancel(nil)
	if latest != nil {
		r.cp.head = latest.Config.CheckpointID
	}
	// A pure edit of the newest checkpoint keeps its pending tasks: the
	// writes of those that finished carry over, so they do not run again.
	var carried [][]checkpoint.PendingWrite // by task position
	if asNode == "" && tup != nil && tup == latest && len(tup.PendingWrites) > 0 {
		r.cp.pending = groupPending(tup.PendingWrites)
		pending := r.cp.pending
		r.prepare()
		carried = make([][]checkpoint.PendingWrite, len(r.tasks))
		for i, t := range r.tasks {
			if t.cached {
				carried[i] = pending[t.id]
			}
		}
	}
	r.step = step
	if err := r.applier.Add(nameOr(asNode, "update"), update.Writes); err != nil {
		return checkpoint.Config{}, err
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("graph: thread %q: update: %w", o.thread, err)
	}
	for _, i := range touched {
		r.cp.dirty[i] = true
	}
	r.markOverwrites(update.Writes)
	if asNode != "" {
		r.next.reset()
		if err := r.route(&task[S]{name: asNode, update: update, wire: c.wireOf(asNode)}, &r.st); err != nil {
			return checkpoint.Config{}, err
		}
		r.finishJoins()
	}
	if asNode != "" {
		r.cp.nodes = []string{asNode}
	}
	if err := r.cp.put(checkpoint.SourceUpdate, step, r.scratch); err != nil {
		return checkpoint.Config{}, err
	}
	if carried != nil {
		r.step = step + 1
		r.prepare() // the same tasks, with the new checkpoint's ids
		for i, t := range r.tasks {
			if i >= len(carried) || len(carried[i]) == 0 {
				continue
			}
			ws := make([]checkpoint.PendingWrite, len(carried[i]))
			for k, w := range carried[i] {
				w.TaskID = t.id
				ws[k] = w
			}
			if err := r.cp.putWrites(t.id, ws); err != nil {
				return checkpoint.Config{}, fmt.Errorf("graph: thread %q: update: carry the writes of node %q: %w", o.thread, t.name, err)
			}
		}
	}
	return checkpoint.Config{ThreadID: o.thread, CheckpointID: r.cp.id}, nil
}

func nameOr(name, alt string) string {
	if name == "" {
		return alt
	}
	return name
}
