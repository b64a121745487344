package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
	return c.updateState(ctx, [][]StateUpdate[S]{{{Update: update, AsNode: asNode}}}, opts)
}

// StateUpdate is one update of a BulkUpdateState superstep: writes as if
// node AsNode had returned them (LangGraph's StateUpdate).
type StateUpdate[S any] struct {
	Update state.Update[S]
	AsNode string
}

// BulkUpdateState applies several supersteps of updates in one call
// (LangGraph's bulk_update_state): each superstep's updates go through the
// reducers together, as the tasks of one step do (two last-value writes
// of one field conflict, ErrInvalidUpdate), each as its AsNode, whose
// edges decide what runs next, and each superstep saves one "update"
// checkpoint. AsNode "" (keep the pending tasks) is only for a superstep
// of one update. The whole sequence is computed before the first
// checkpoint is stored: a bad update, a conflict or a router's error
// stores nothing. It returns the last checkpoint's config; copying a
// thread is a bulk update whose first superstep is the input (AsNode
// graph.Start).
func (c *Compiled[S]) BulkUpdateState(ctx context.Context, supersteps [][]StateUpdate[S], opts ...UpdateOption) (checkpoint.Config, error) {
	if len(supersteps) == 0 {
		return checkpoint.Config{}, fmt.Errorf("graph: BulkUpdateState: %w: no supersteps", ErrInvalidUpdate)
	}
	for i, step := range supersteps {
		if len(step) == 0 {
			return checkpoint.Config{}, fmt.Errorf("graph: BulkUpdateState: %w: superstep %d has no updates", ErrInvalidUpdate, i)
		}
		if len(step) > 1 && slices.ContainsFunc(step, func(u StateUpdate[S]) bool { return u.AsNode == "" }) {
			return checkpoint.Config{}, fmt.Errorf("graph: BulkUpdateState: %w: superstep %d has several updates, so each names its node (AsNode)", ErrInvalidUpdate, i)
		}
	}
	return c.updateState(ctx, supersteps, opts)
}

func (c *Compiled[S]) updateState(ctx context.Context, supersteps [][]StateUpdate[S], opts []UpdateOption) (checkpoint.Config, error) {
	var o runOptions
	runOptionsOf(&o, opts)
	if c.saver == nil {
		return checkpoint.Config{}, errors.New("graph: UpdateState needs a checkpointer (graph.WithCheckpointer)")
	}
	if o.thread == "" {
		return checkpoint.Config{}, ErrThreadRequired
	}
	for _, step := range supersteps {
		for _, u := range step {
			if u.AsNode != "" && u.AsNode != Start && c.nodes[u.AsNode] == nil {
				return checkpoint.Config{}, fmt.Errorf("graph: UpdateState as unknown node %q", u.AsNode)
			}
		}
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
	if len(supersteps) > 1 || len(supersteps[0]) > 1 {
		// Several checkpoints: compute them all first, storing nothing, so
		// that a failure leaves the thread as it was.
		if _, err := c.writeUpdates(ctx, o, latest, tup, supersteps, true); err != nil {
			return checkpoint.Config{}, err
		}
	}
	return c.writeUpdates(ctx, o, latest, tup, supersteps, false)
}

// writeUpdates applies the supersteps of updates to the checkpoint tup
// (latest being the thread's head) and saves a checkpoint for each; dry,
// it saves nothing.
func (c *Compiled[S]) writeUpdates(ctx context.Context, o runOptions, latest, tup *checkpoint.Tuple, supersteps [][]StateUpdate[S], dry bool) (checkpoint.Config, error) {
	var err error
	r := c.newWriter(ctx, o)
	defer r.cancel(nil)
	r.cp.dry = dry
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
	first := supersteps[0][0]
	var carried [][]checkpoint.PendingWrite // by task position
	if len(supersteps) == 1 && first.AsNode == "" && tup != nil && tup == latest && len(tup.PendingWrites) > 0 {
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
	for k, superstep := range supersteps {
		r.step = step
		clear(r.scratch)
		var asNodes []string
		for _, u := range superstep {
			if err := r.applier.Add(nameOr(u.AsNode, "update"), u.Update.Writes); err != nil {
				return checkpoint.Config{}, err
			}
		}
		touched, err := r.applier.Apply(&r.st, false)
		if err != nil {
			return checkpoint.Config{}, fmt.Errorf("graph: thread %q: update%s: %w", o.thread, bulkStep(supersteps, k), err)
		}
		for _, i := range touched {
			r.cp.dirty[i] = true
		}
		for _, u := range superstep {
			r.markOverwrites(u.Update.Writes)
		}
		r.markRewrites()
		if superstep[0].AsNode != "" {
			r.next.resetKeepDeferred() // a deferred node still waits
			for _, u := range superstep {
				if err := r.route(&task[S]{name: u.AsNode, update: u.Update, wire: c.wireOf(u.AsNode)}, &r.st); err != nil {
					return checkpoint.Config{}, err
				}
				asNodes = append(asNodes, u.AsNode)
			}
			r.finishJoins()
			r.cp.nodes = asNodes
		}
		if err := r.cp.put(checkpoint.SourceUpdate, step, r.scratch); err != nil {
			return checkpoint.Config{}, err
		}
		step++
	}
	step--
	if carried != nil && !dry {
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

// bulkStep names superstep k in an error, when there are several.
func bulkStep[S any](supersteps [][]StateUpdate[S], k int) string {
	if len(supersteps) == 1 {
		return ""
	}
	return fmt.Sprintf(" (superstep %d)", k)
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
