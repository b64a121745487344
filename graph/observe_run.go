package graph

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// startObserved starts observing the run and returns the context it runs
// in. With a MetadataObserver, the observer's entries join the metadata
// of the run's checkpoints (the caller's win).
func (r *run[S]) startObserved(ctx context.Context) context.Context {
	rs := RunStart{Graph: r.c.name, ThreadID: r.o.thread, Namespace: r.ns, RunID: r.o.runID}
	if sc := scopeOf(ctx); sc != nil {
		rs.Node = sc.node
	}
	ctx, r.obsEnd = r.obs.StartRun(ctx, rs)
	if mo, ok := r.obs.(MetadataObserver); ok {
		if md := mo.CheckpointMetadata(ctx); len(md) > 0 {
			merged := maps.Clone(md)
			maps.Copy(merged, r.o.metadata)
			r.o.metadata = merged
		}
	}
	return ctx
}

// endObserved ends the run's observation with its outcome.
func (r *run[S]) endObserved(err error) {
	if r.obsEnd == nil {
		return
	}
	end := r.obsEnd
	r.obsEnd = nil
	if errors.Is(err, errStopped) {
		err = context.Canceled // the consumer left: the run was cancelled
	}
	end(RunEnd{From: r.obsFrom, Checkpoint: r.checkpointID(), Previous: r.obsPrevious, Steps: r.stepsRun, Err: err})
}

// observedStep runs a superstep (its tasks, then its writes and
// checkpoint) as runTasks and finishStep do, observed: the step's context
// is the run's while it runs, so its tasks and saves are the step's.
func (r *run[S]) observedStep() error {
	ss := StepStart{Step: r.step, Namespace: r.ns, Nodes: make([]string, 0, len(r.tasks))}
	for _, t := range r.tasks {
		if t.name == Start {
			continue
		}
		ss.Nodes = append(ss.Nodes, t.name)
		if t.cached {
			ss.Restored++
		}
	}
	base := r.ctx
	ctx, end := r.obs.StartStep(base, ss)
	r.ctx = ctx
	err := r.runTasks()
	if err == nil {
		err = r.finishStep()
	}
	r.ctx = base
	end(StepEnd{Err: err})
	return err
}

// observeTask starts observing task t, whose scope sc is new: the node
// runs in the context the observer returns.
func (r *run[S]) observeTask(sc *taskScope, t *task[S]) {
	sc.Context, t.obsEnd = r.obs.StartTask(sc.Context, sc.info())
}

// endTask ends the observation of task t, if any, with its outcome.
func (r *run[S]) endTask(t *task[S]) {
	if t.obsEnd == nil {
		return
	}
	end := TaskEnd{Attempts: t.attempts, Writes: len(t.update.Writes), FromCache: t.fromCache}
	switch {
	case t.err == nil:
	case errors.Is(t.err, errInterrupt):
		end.Interrupts = t.scope.interrupts()
	default:
		end.Err = t.err
	}
	t.obsEnd(end)
	t.obsEnd = nil
}

// observeSave starts observing the write of the checkpoint req, and
// returns the context the saver is called with and the function that ends
// the observation (a no-op without an Observer).
func (p *persist[S]) observeSave(ctx context.Context, req *checkpoint.PutRequest) (context.Context, func(error)) {
	r := p.r
	if r.obs == nil {
		return ctx, ignoreSaveEnd
	}
	ss := SaveStart{
		ThreadID: req.Config.ThreadID, Namespace: req.Config.Namespace, CheckpointID: req.Checkpoint.ID,
		Source: req.Metadata.Source, Step: req.Metadata.Step, Saver: p.saver, Durability: r.durability,
		Channels: len(req.Checkpoint.New),
	}
	for _, b := range req.Checkpoint.New {
		ss.Bytes += len(b.Data)
	}
	ctx, end := r.obs.StartSave(ctx, ss)
	began := time.Now()
	return ctx, func(err error) { end(SaveEnd{Err: err, Duration: time.Since(began)}) }
}

func ignoreSaveEnd(error) {}
