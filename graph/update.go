package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// UpdateState writes update to the thread as if node asNode had returned
// it: the writes go through the reducers, asNode's edges decide what runs
// next, and an "update" checkpoint is saved. With asNode "" the pending
// tasks stay as they were (a pure edit of values). Pinned with
// WithCheckpoint, the update forks the thread from that checkpoint. It
// returns the new checkpoint's config.
func (c *Compiled[S]) UpdateState(ctx context.Context, update state.Update[S], asNode string, opts ...UpdateOption) (checkpoint.Config, error) {
	var o runOptions
	runOptionsOf(&o, opts)
	if c.saver == nil {
		return checkpoint.Config{}, errors.New("graph: UpdateState needs a checkpointer (graph.WithCheckpointer)")
	}
	if o.thread == "" {
		return checkpoint.Config{}, ErrThreadRequired
	}
	if asNode != "" && asNode != Start && c.nodes[asNode] == nil {
		return checkpoint.Config{}, fmt.Errorf("graph: UpdateState as unknown node %q", asNode)
	}
	holder := holderName(nameOr(o.runID, "update-"+uuid.Must(uuid.NewV7()).String()))
	release, err := c.threads.acquire(ctx, o.thread, holder, o.wait)
	if err != nil {
		return checkpoint.Config{}, err
	}
	defer release()
	// The update is short: its lease needs no heartbeat.
	ls, err := c.takeLease(ctx, c.saver, o.thread, holder, o.wait)
	if err != nil {
		return checkpoint.Config{}, err
	}
	if ls != nil {
		defer releaseLease(ctx, ls)
		ctx = checkpoint.WithFence(ctx, ls)
	}
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
	r := c.newWriter(ctx, o)
	defer r.cancel(nil)
	var d *decoded[S]
	step := -1
	if tup != nil {
		if d, err = c.decode(tup, r.cp.cfg); err != nil {
			return checkpoint.Config{}, err
		}
		r.cp.adopt(d)
		step = d.step()
	}
	if latest != nil {
		r.cp.head = latest.Config.CheckpointID
	}
	// A pure edit of the newest checkpoint keeps its pending tasks: the
	// writes of those that finished carry over, so they do not run again,
	// and so do the interrupts of those that paused (and the answers they
	// were given), so a later Resume answers them.
	var carried [][]checkpoint.PendingWrite // by task position
	if asNode == "" && tup != nil && tup == latest && len(tup.PendingWrites) > 0 {
		pending := groupPending(tup.PendingWrites)
		tasks := c.pendingTasks(d, pending)
		carried = make([][]checkpoint.PendingWrite, len(tasks))
		for i, t := range tasks {
			if t.cached {
				carried[i] = pending[t.id]
				continue
			}
			for _, w := range pending[t.id] {
				if w.Channel == checkpoint.InterruptChannel || w.Channel == checkpoint.ResumeChannel || w.Channel == durableChannel {
					carried[i] = append(carried[i], w)
				}
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
	r.markRewrites()
	if asNode != "" {
		r.next.resetKeepDeferred() // a deferred node still waits
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

// newWriter returns a run that executes no task: it writes one checkpoint
// for UpdateState, applying the update and routing as asNode would.
func (c *Compiled[S]) newWriter(ctx context.Context, o runOptions) *run[S] {
	r := &run[S]{c: c, o: o, applier: c.schema.NewApplier(), scratch: make([]bool, c.schema.Len()), next: newSchedule(c)}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.cp = newPersist(r, c.saver)
	return r
}
