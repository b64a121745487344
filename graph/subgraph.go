package graph

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// parentInfo is what a subgraph's run inherits from the task that runs it.
type parentInfo struct {
	saver        checkpoint.Saver
	thread       string
	ns           string // the namespace of the run it describes
	parentNS     string // the namespace of the parent run
	checkpointID string // the parent's checkpoint holding the task
	limit        int
	modes        Mode
	subgraphs    bool
	durability   Durability   // a subgraph run follows its parent's
	runID        string       // the run's id, which its subgraphs' runs share
	store        durableStore // saves the Durable results of the run's tasks (nil without a checkpointer)
	lease        *leaseKeeper
	observer     Observer // the run's, for subgraphs without their own
}

type parentKey struct{}

// parentOf returns the parent info a subgraph run was started with.
func parentOf(ctx context.Context) *parentInfo {
	if ctx == nil {
		return nil
	}
	p, _ := ctx.Value(parentKey{}).(*parentInfo)
	return p
}

// parentInfo describes this run to subgraphs its tasks start.
func (r *run[S]) parentInfo() *parentInfo {
	p := &parentInfo{thread: r.o.thread, runID: r.o.runID, ns: r.ns, limit: r.o.limit, modes: r.o.modes, subgraphs: r.o.subgraphs, durability: r.durability, lease: r.lease, observer: r.obs}
	if r.cp != nil {
		p.saver, p.store = r.cp.saver, r.cp
	}
	return p
}

// subgraph marks a node that is a compiled graph, for drawing and for
// reading its state.
type subgraph interface {
	mermaidBody(prefix, indent string, styles bool) []string
	subState(ctx context.Context, saver checkpoint.Saver, thread, ns string) (any, error)
}

// asNode runs the compiled graph as a node of a parent over the same
// state: from the parent's state, in the namespace of the task, resuming
// its own checkpoints when the parent's task runs again.
func (c *Compiled[S]) asNode(name string) NodeFunc[S] {
	return func(ctx context.Context, in S) (state.Update[S], error) {
		sc := scopeOf(ctx)
		pi := &parentInfo{limit: c.recursionLimit}
		var opts []RunOption
		if sc != nil && sc.parent != nil {
			pp := sc.parent
			*pi = parentInfo{saver: pp.saver, thread: pp.thread, parentNS: sc.namespace(), limit: pp.limit, modes: pp.modes, subgraphs: pp.subgraphs, durability: pp.durability, lease: pp.lease, runID: pp.runID, observer: pp.observer}
			pi.ns = name + ":" + sc.taskID
			if ns := sc.namespace(); ns != "" {
				pi.ns = ns + "|" + pi.ns
			}
			if sc.hitl != nil && len(sc.hitl.resumeByID) > 0 {
				opts = append(opts, ResumeByID(sc.hitl.resumeByID))
			}
		}
		if sc != nil {
			pi.checkpointID = sc.checkpointID
		}
		opts = append(opts, WithThread(pi.thread), WithRecursionLimit(pi.limit))
		if pi.runID != "" {
			opts = append(opts, WithRunID(pi.runID))
		}
		var out func(Event[S]) bool
		if sc != nil && sc.emit != nil && pi.subgraphs {
			opts = append(opts, StreamModes(pi.modes), WithSubgraphs()) // and its own subgraphs
			info := &sc.taskInfo
			out = func(ev Event[S]) bool { info.send(eventOut{sub: ev}); return true }
		}
		o := c.options(opts)
		r, err := c.newRun(context.WithValue(ctx, parentKey{}, pi), o, out)
		if err != nil {
			return state.Update[S]{}, err
		}
		defer r.close()
		r.st = in
		r.recordsRed = c.hasReduced
		if err := r.startSub(); err != nil {
			r.endObserved(err)
			return state.Update[S]{}, err
		}
		err = r.finish(r.loop())
		if err != nil && len(r.reduced) > 0 {
			err = errors.Join(err, r.saveReduced())
		}
		r.endObserved(err)
		var ie *InterruptError
		if errors.As(err, &ie) && sc != nil {
			h := sc.hitlOf()
			h.interrupts = append(h.interrupts, ie.Interrupts...)
			return state.Update[S]{}, errInterrupt
		}
		if upd, ok := ParentUpdate[S](err); ok { // a node of it handed off to this graph
			return upd, nil
		}
		if err != nil {
			return state.Update[S]{}, err
		}
		return state.Update[S]{Writes: r.reducedWrites(&in)}, nil
	}
}

// recordReduced records a step's writes to merge and custom fields.
func (r *run[S]) recordReduced(ws []state.Write[S]) {
	sc := r.c.schema
	for _, w := range ws {
		if i := sc.IndexOf(w); i >= 0 && isReduced(sc.Kind(i)) {
			r.reduced = append(r.reduced, w)
		}
	}
}

// isReduced reports whether a field of kind k combines writes with a
// function that state.Schema.Diff cannot invert: a merge or a custom
// reducer.
func isReduced(k state.Kind) bool { return k == state.KindMerge || k == state.KindCustom }

// reducedWrites returns the subgraph run's result as its parent's update,
// from in, the state it started from: the difference (state.Schema.Diff)
// for value, append and sum fields, and for a merge or custom field the
// writes its steps made, so that the parent applies them through its
// reducer, beside its other tasks' writes to the field, as it would apply
// theirs. A subgraph resumed after an interrupt or an error starts its
// record with the writes the earlier call saved (saveReduced), so its
// earlier steps' writes go through the reducer too. A merge or custom
// field whose recorded writes do not rebuild its final value from in (a
// record lost in a crash, a parent resumed with new input) gets the
// overwrite of Diff.
func (r *run[S]) reducedWrites(in *S) []state.Write[S] {
	sc := r.c.schema
	diff := sc.Diff(in, &r.st)
	if len(r.reduced) == 0 {
		return diff
	}
	rebuilt := *in
	if err := r.applier.Add("subgraph", r.reduced); err != nil {
		return diff
	}
	if _, err := r.applier.Apply(&rebuilt, true); err != nil {
		return diff
	}
	out := diff[:0:0]
	replaced := make([]bool, sc.Len())
	for _, w := range diff {
		i := sc.IndexOf(w)
		if i < 0 || !isReduced(sc.Kind(i)) || !sc.Equal(&rebuilt, &r.st, i) {
			out = append(out, w)
			continue
		}
		replaced[i] = true
	}
	for _, w := range r.reduced {
		if i := sc.IndexOf(w); replaced[i] {
			out = append(out, w)
		}
	}
	return out
}

// reducedChannel is the pending write, against a subgraph's checkpoint,
// of the writes to merge and custom fields that the subgraph's steps
// applied before it stopped (at an interrupt or an error): the call that
// resumes it from that checkpoint starts its record with them, so that its
// result reaches the parent through the parent's reducers (reducedWrites)
// rather than as an overwrite.
const (
	reducedChannel = "__reduced__"
	reducedIndex   = -8
)

// reducedTaskID is the task id the reducedChannel write of checkpoint id
// of namespace ns is stored under.
func reducedTaskID(id, ns string) string { return checkpoint.DeriveID(id, ns, reducedChannel) }

// savedReduced is one write of a reducedChannel value.
type savedReduced struct {
	Field string `json:"field"`
	Value []byte `json:"value"`
}

// saveReduced stores the run's record of writes to merge and custom
// fields against the checkpoint a resume continues from.
func (r *run[S]) saveReduced() error {
	p := r.cp
	if p == nil || p.id == "" {
		return nil
	}
	out := make([]savedReduced, 0, len(r.reduced))
	for _, w := range r.reduced {
		ch, data, err := r.c.schema.EncodeWrite(w, r.c.ser)
		if err != nil {
			return p.errorf("save the subgraph's writes to field %q: %w", w.Field(), err)
		}
		out = append(out, savedReduced{Field: ch, Value: data})
	}
	data, err := json.Marshal(out)
	if err != nil {
		return p.errorf("save the subgraph's writes: %w", err)
	}
	id := reducedTaskID(p.id, p.cfg.Namespace)
	w := []checkpoint.PendingWrite{{TaskID: id, Index: reducedIndex, Channel: reducedChannel, Value: data}}
	if err := p.putWrites(id, w); err != nil {
		return p.errorf("save the subgraph's writes: %w", err)
	}
	return nil
}

// restoreReduced starts the run's record of writes to merge and custom
// fields with those saved against tup, the checkpoint it resumes.
func (r *run[S]) restoreReduced(tup *checkpoint.Tuple) error {
	id := reducedTaskID(tup.Config.CheckpointID, r.cp.cfg.Namespace)
	for _, w := range tup.PendingWrites {
		if w.TaskID != id || w.Channel != reducedChannel {
			continue
		}
		var saved []savedReduced
		if err := json.Unmarshal(w.Value, &saved); err != nil {
			return r.cp.errorf("checkpoint %q: the subgraph's writes: %w: %w", tup.Config.CheckpointID, checkpoint.ErrCorrupt, err)
		}
		r.reduced = r.reduced[:0]
		for _, s := range saved {
			wr, err := r.c.schema.DecodeWrite(s.Field, s.Value, r.c.ser)
			if err != nil {
				return r.cp.errorf("checkpoint %q: the subgraph's writes: %w: %w", tup.Config.CheckpointID, checkpoint.ErrCorrupt, err)
			}
			r.reduced = append(r.reduced, wr)
		}
	}
	return nil
}

// startSub starts a subgraph run: it resumes the namespace's checkpoint if
// there is one, and otherwise starts from the parent's state.
func (r *run[S]) startSub() error {
	in := r.st
	if r.cp != nil {
		loaded, err := r.cp.load(state.Update[S]{})
		if err != nil {
			return err
		}
		if loaded {
			return nil
		}
		r.st = in
		for i := range r.cp.dirty {
			r.cp.dirty[i] = true
		}
	}
	return r.applyInput(state.Update[S]{})
}
