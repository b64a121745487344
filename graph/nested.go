package graph

import (
	"context"
	"errors"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
)

// A compiled graph invoked from a node's body (c.Invoke or c.Stream inside
// a NodeFunc, rather than added with AddSubgraph) runs as a part of the
// node's run, as in LangGraph: when it has no checkpointer of its own and
// the call names no thread, it inherits the parent run's checkpointer,
// thread, lease, durability and run id, in a namespace of its own (the
// parent's namespace, then node:task-id). It can interrupt: the interrupts
// are the node's, and when the node runs again on resume the call resumes
// the nested graph from its checkpoint (its input is not applied again),
// answering its interrupts with the resume values the node was given. A
// nested graph that finished is not run again when the node re-runs: the
// call returns its final state. When the parent streams WithSubgraphs,
// the nested run's events in the parent's modes go to the parent's stream
// too, tagged with its namespace (an Event over another state type comes
// as Event.Nested), as a subgraph's do.

// nest returns the context and options of a call of c made in ctx: inside
// a node of a run with a checkpointer, a nested call (see above). Any
// parent info an enclosing subgraph left in ctx is masked: it describes
// that subgraph's run, not this call.
func (c *Compiled[S]) nest(ctx context.Context, o runOptions) (context.Context, runOptions, *taskScope) {
	sc := scopeOf(ctx)
	if sc == nil || sc.parent == nil || sc.parent.saver == nil || c.saver != nil || o.thread != "" || o.checkpointID != "" {
		if parentOf(ctx) != nil {
			ctx = context.WithValue(ctx, parentKey{}, (*parentInfo)(nil))
		}
		if sc != nil && sc.parent != nil && c.saver == nil && o.thread == "" && o.checkpointID == "" {
			// A run without a checkpointer: nothing to nest in, but its
			// events still go, tagged with its namespace, to a parent
			// streaming WithSubgraphs.
			pp := sc.parent
			pi := &parentInfo{parentNS: sc.namespace(), limit: pp.limit, runID: pp.runID, observer: pp.observer, ns: sc.node + ":" + sc.taskID}
			if ns := sc.namespace(); ns != "" {
				pi.ns = ns + "|" + pi.ns
			}
			return context.WithValue(ctx, parentKey{}, pi), o, sc
		}
		return ctx, o, nil
	}
	pp := sc.parent
	name := sc.node + ":" + sc.taskID
	if n := sc.extOf().nested.Add(1); n > 1 {
		// A second graph the node invokes gets a namespace of its own.
		name = sc.node + ":" + checkpoint.DeriveID(sc.taskID, "nested", strconv.Itoa(int(n)))
	}
	pi := &parentInfo{saver: pp.saver, thread: pp.thread, parentNS: sc.namespace(), checkpointID: sc.checkpointID,
		limit: pp.limit, durability: pp.durability, lease: pp.lease, runID: pp.runID, ns: name, observer: pp.observer}
	if ns := sc.namespace(); ns != "" {
		pi.ns = ns + "|" + name
	}
	o.thread, o.nested = pp.thread, true
	if o.runID == "" {
		o.runID = pp.runID
	}
	if sc.hitl != nil && len(sc.hitl.resumeByID) > 0 && o.resumeByID == nil && len(o.resume) == 0 {
		// The node's answers, by interrupt id: those raised in this
		// namespace answer its interrupts, the others are not its own.
		o.resumeByID, o.resumeSubset = sc.hitl.resumeByID, true
	}
	return context.WithValue(ctx, parentKey{}, pi), o, sc
}

// resumesNested reports whether a nested call resumes its namespace's
// checkpoint (the node runs again) rather than applying its input.
func (r *run[S]) resumesNested() (bool, error) {
	_, err := r.cp.saver.Get(r.ctx, r.cp.cfg)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		r.o.resumeByID, r.o.resume = nil, nil // nothing of it to answer
		return false, nil
	case err != nil:
		return false, r.cp.errorf("read latest checkpoint: %w", err)
	}
	return true, nil
}

// report hands the interrupts a nested call stopped at to the node that
// made it: they are the node's, and the node's task is interrupted.
func report(sc *taskScope, err error) {
	if sc == nil || err == nil {
		return
	}
	reportInterrupts(sc, err)
}

// reportInterrupts is report's slow path, apart so that a call that is not
// nested does not allocate for errors.As.
//
//go:noinline
func reportInterrupts(sc *taskScope, err error) {
	var ie *InterruptError
	if errors.As(err, &ie) {
		h := sc.hitlOf()
		h.interrupts = append(h.interrupts, ie.Interrupts...)
	}
}

// forwarding returns the modes of the parent's stream that a nested call
// made from the task sc forwards its events to: the parent streams with
// WithSubgraphs, as LangGraph yields a nested graph's events, tagged with
// its namespace, with subgraphs=True. Zero when nothing is forwarded.
func forwarding(sc *taskScope) Mode {
	if sc == nil || sc.emit == nil || sc.parent == nil || !sc.parent.subgraphs {
		return 0
	}
	return sc.modes
}

// forwardTo hands ev, an event of a nested call made from the task sc, to
// the parent's stream.
func forwardTo[S any](sc *taskScope, ev Event[S]) {
	sc.send(eventOut{sub: ev})
}
