package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	// Interrupts are the pending interrupts of all tasks; in a past
	// snapshot (History, or State pinned to a checkpoint) also those its
	// finished tasks were resumed from, as LangGraph's history shows them.
	Interrupts []Interruption
}

// TaskInfo is a task of the pending step of a checkpoint.
type TaskInfo struct {
	ID   string
	Node string
	Done bool // its writes are saved; resuming will not run it
	// FromCache says its saved writes came from the node cache
	// (WithCache): the node did not run.
	FromCache bool
	Error     string // the error it failed with, if it failed
	// Interrupts are the task's pending interrupts (in a past snapshot,
	// also those it was resumed from).
	Interrupts []Interruption
	// Breakpoint says the run stopped before this task at an
	// interrupt-before breakpoint (WithInterruptBefore). As in LangGraph,
	// such a stop is no interrupt: Interrupts leaves it out.
	Breakpoint bool
	// Namespace is, for a task of a subgraph node (AddSubgraph), the
	// checkpoint namespace its subgraph runs in (LangGraph's
	// task.state config): read it with WithNamespace.
	Namespace string
	// State is, when State was called WithSubgraphs, the subgraph's own
	// snapshot for a task of a subgraph node that has not finished and
	// whose subgraph stored a checkpoint: a *Snapshot[T] of the
	// subgraph's state type, itself with its subgraphs' states (LangGraph's
	// get_state(subgraphs=True)). Nil otherwise.
	State any
	// Result is what the task wrote, by field name (LangGraph's
	// PregelTask.result), once it finished: its saved writes, or, in
	// History, for the only task of a step (whose writes the next
	// checkpoint holds rather than pending writes), the change from this
	// checkpoint's state to the next one's (state.Schema.Diff). Nil for a
	// task that has not finished, or whose next checkpoint History did not
	// reach (a pinned State of a step with one task).
	Result map[string]any
}

// resultOf is the Result of a task that wrote ws.
func resultOf[S any](ws []state.Write[S]) map[string]any {
	out := make(map[string]any, len(ws))
	for _, w := range ws {
		out[w.Field()] = w.Value()
	}
	return out
}

// State returns the thread's latest snapshot, or the one pinned with
// WithCheckpoint. An unknown thread or checkpoint is checkpoint.ErrNotFound.
// WithNamespace reads a subgraph's checkpoints; WithSubgraphs fills the
// pending subgraph tasks' TaskInfo.State.
func (c *Compiled[S]) State(ctx context.Context, opts ...StateOption) (*Snapshot[S], error) {
	o := readOptionsOf(opts)
	if c.saver == nil {
		return nil, errors.New("graph: State needs a checkpointer (graph.WithCheckpointer)")
	}
	if o.thread == "" {
		return nil, ErrThreadRequired
	}
	if o.ns == "" {
		return c.readState(ctx, c.saver, o)
	}
	sub, err := c.subgraphAt(o.ns)
	if err != nil {
		return nil, fmt.Errorf("graph: thread %q: %w", o.thread, err)
	}
	return sub.readState(ctx, c.saver, o)
}

// readState is State on the checkpoints of saver: c's own, or, for a
// subgraph, its parent's.
func (c *Compiled[S]) readState(ctx context.Context, saver checkpoint.Saver, o readOptions) (*Snapshot[S], error) {
	cfg := checkpoint.Config{ThreadID: o.thread, Namespace: o.ns, CheckpointID: o.checkpointID}
	tup, cached, err := c.stateTuple(ctx, saver, cfg)
	if err != nil {
		if o.ns != "" {
			return nil, fmt.Errorf("graph: thread %q: namespace %q: %w", o.thread, o.ns, err)
		}
		if o.checkpointID != "" {
			return nil, fmt.Errorf("graph: thread %q: checkpoint %q: %w", o.thread, o.checkpointID, err)
		}
		return nil, fmt.Errorf("graph: thread %q: %w", o.thread, err)
	}
	d := new(decoded[S])
	if err := c.decodeInto(d, tup, checkpoint.Config{ThreadID: o.thread, Namespace: o.ns}, decodeOptions[S]{cached: cached, view: true}); err != nil {
		return nil, err
	}
	snap, err := c.snapshot(d, o.checkpointID == "")
	if err != nil || !o.subgraphs {
		return snap, err
	}
	return snap, c.subgraphStates(ctx, saver, snap)
}

// subgraphAt returns the subgraph whose checkpoints live in the namespace
// ns ("node:task-id", nested ones joined by "|"), following the subgraph
// nodes (AddSubgraph) the namespace names from c.
func (c *Compiled[S]) subgraphAt(ns string) (*Compiled[S], error) {
	cur := c
	for part := range strings.SplitSeq(ns, "|") {
		name, _, ok := strings.Cut(part, ":")
		n := cur.nodes[name]
		if !ok || n == nil || n.sub == nil {
			return nil, fmt.Errorf("namespace %q: %q is not a subgraph node's namespace (node:task-id)", ns, part)
		}
		sub, ok := n.sub.(*Compiled[S])
		if !ok {
			return nil, fmt.Errorf("namespace %q: node %q is a subgraph over another state type", ns, name)
		}
		cur = sub
	}
	return cur, nil
}

// subgraphStates fills TaskInfo.State of the snapshot's pending subgraph
// tasks with their subgraphs' snapshots, recursively. A subgraph that has
// stored no checkpoint yet has no state.
func (c *Compiled[S]) subgraphStates(ctx context.Context, saver checkpoint.Saver, snap *Snapshot[S]) error {
	for i := range snap.Tasks {
		t := &snap.Tasks[i]
		n := c.nodes[t.Node]
		if t.Done || t.Namespace == "" || n == nil || n.sub == nil {
			continue
		}
		st, err := n.sub.subState(ctx, saver, snap.Config.ThreadID, t.Namespace)
		if errors.Is(err, checkpoint.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("graph: thread %q: state of subgraph %q: %w", snap.Config.ThreadID, t.Node, err)
		}
		t.State = st
	}
	return nil
}

// subState is the latest snapshot of the subgraph c in namespace ns of
// the thread, with its own subgraphs' states.
func (c *Compiled[S]) subState(ctx context.Context, saver checkpoint.Saver, thread, ns string) (any, error) {
	snap, err := c.readState(ctx, saver, readOptions{thread: thread, ns: ns, subgraphs: true})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshot is the snapshot of the decoded checkpoint d. With applyPending
// (the thread's latest checkpoint) its values include the writes of the
// tasks of the pending step that finished, and Next leaves those tasks
// out.
func (c *Compiled[S]) snapshot(d *decoded[S], applyPending bool) (*Snapshot[S], error) {
	tup := d.tup
	// One allocation for the snapshot and room for one next node and one
	// task, the common case (History makes thousands of snapshots).
	m := new(snapshotMemory[S])
	snap := &m.snap
	*snap = Snapshot[S]{
		Config:    tup.Config,
		Parent:    tup.Parent,
		Metadata:  tup.Metadata,
		CreatedAt: tup.Checkpoint.CreatedAt,
		Next:      m.next[:0],
		Tasks:     m.tasks[:0],
	}
	var applier *state.Applier[S]
	if applyPending {
		applier = c.schema.NewApplier()
	}
	var pending map[string][]checkpoint.PendingWrite
	if len(tup.PendingWrites) > 0 {
		pending = groupPending(tup.PendingWrites)
	}
	var answered map[string][]checkpoint.PendingWrite
	if !applyPending {
		// A past checkpoint shows the interrupts its tasks were resumed
		// from, as LangGraph's history does, beside their results.
		for _, w := range tup.PendingWrites {
			if w.Channel == checkpoint.InterruptChannel {
				if answered == nil {
					answered = map[string][]checkpoint.PendingWrite{}
				}
				answered[w.TaskID] = append(answered[w.TaskID], w)
			}
		}
	}
	if applyPending && len(pending) > 0 {
		if err := c.applyResumeInput(d, pending, applier); err != nil {
			return nil, err
		}
	}
	for _, t := range c.pendingTasks(d, pending) {
		info := TaskInfo{ID: t.id, Node: t.name, Done: t.cached, FromCache: t.fromCache}
		if t.node != nil && t.node.sub != nil {
			info.Namespace = t.name + ":" + t.id
			if ns := d.cfg.Namespace; ns != "" {
				info.Namespace = ns + "|" + info.Namespace
			}
		}
		if t.cached {
			info.Result = resultOf(t.update.Writes)
		}
		ws := pending[t.id]
		if t.cached && answered != nil {
			ws = append(slices.Clip(ws), answered[t.id]...)
		}
		for _, w := range ws {
			switch w.Channel {
			case checkpoint.ErrorChannel:
				var te checkpoint.TaskError
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
				// A static breakpoint's record (When "before") says why
				// the run stopped, for a resume and for inspectors; as
				// LangGraph's, the snapshot shows no interrupt for it (the
				// task is simply next), as after interrupt_after.
				all := len(ints)
				ints = slices.DeleteFunc(ints, func(in Interruption) bool { return in.When == whenBefore })
				info.Breakpoint = info.Breakpoint || len(ints) < all
				if len(ints) == 0 {
					continue
				}
				info.Interrupts = ints
				snap.Interrupts = append(snap.Interrupts, ints...)
			}
		}
		if t.name == Start {
			// The input waiting to be applied: the checkpoint is the state
			// before it, as LangGraph's input checkpoint is.
			snap.Next = append(snap.Next, t.name)
			snap.Tasks = append(snap.Tasks, info)
			continue
		}
		if t.cached && applyPending {
			if err := applier.Add(t.name, t.update.Writes); err != nil {
				return nil, err
			}
		}
		if !t.cached || !applyPending {
			snap.Next = append(snap.Next, t.name)
		}
		snap.Tasks = append(snap.Tasks, info)
	}
	if applyPending {
		if _, err := applier.Apply(&d.st, true); err != nil {
			return nil, fmt.Errorf("graph: thread %q: pending writes: %w", tup.Config.ThreadID, err)
		}
	}
	snap.Values = d.st
	if len(snap.Next) == 0 {
		snap.Next = nil
	}
	if len(snap.Tasks) == 0 {
		snap.Tasks = nil
	}
	return snap, nil
}

// snapshotMemory is a Snapshot with the backing arrays of its first next
// node and task: appending a second copies, so the snapshot's slices are
// still the caller's alone.
type snapshotMemory[S any] struct {
	snap  Snapshot[S]
	next  [1]string
	tasks [1]TaskInfo
}
