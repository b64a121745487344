package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// A run saves a checkpoint after its input and after every step, and each
// task's writes as it finishes. The graph's Durability says when: at once
// (DurabilitySync), in the background while the next step runs
// (DurabilityAsync, see inflightPut), or only when the run ends
// (DurabilityExit, see heldWrites and flush).

// inflightPut is a checkpoint being stored in the background.
type inflightPut[S any] struct {
	done chan struct{} // closed when Put returned
	took time.Duration // how long Put took, set before done is closed
	id   string
	step int
	md   checkpoint.Metadata
	st   S // the state it holds, for the state cache
	cfg  checkpoint.Config
	err  error
	// prev are the checkpoint ids and versions the run had before this
	// save, which it goes back to when the save fails.
	prevID, prevParent, prevHead string
	prevVersions                 map[string]string
}

// saveTask stores a finished task's writes, or its error, or its
// interrupts with the resume values it was given.
//
// A step's only task that succeeded saves nothing here: the step's
// checkpoint, stored right after it, records its writes, so a durable
// sequential step costs one commit. (A task that took its writes from the
// node cache saves them, marked, so History shows where they came from;
// one resumed from interrupts saves them with its answers, AnswersChannel.) A crash in between re-runs the task,
// exactly as a crash before its writes were saved would.
func (p *persist[S]) saveTask(t *task[S]) error {
	if p.id == "" {
		return nil
	}
	if t.err == nil && len(p.r.tasks) == 1 && !t.fromCache && len(t.resume) == 0 {
		return nil
	}
	if t.err != nil && p.r.stoppedBy(t.err) {
		// Stopped by the run's cancellation (Ctrl-C, a consumer that left
		// the stream, the caller's deadline), not failed: nothing is
		// recorded, and the task is simply pending, to run again on resume.
		return nil
	}
	var ws []checkpoint.PendingWrite
	add := func(idx int, ch string, v []byte) {
		ws = append(ws, checkpoint.PendingWrite{TaskID: t.id, Index: idx, Channel: ch, Value: v})
	}
	switch {
	case t.err == nil:
		var err error
		if ws, err = p.successWrites(t); err != nil {
			return err
		}
		if len(t.resume) > 0 { // the answers it finished with (AnswersChannel)
			if data, err := json.Marshal(t.resume); err == nil {
				add(AnswersIndex, AnswersChannel, data)
			}
		}
	case errors.Is(t.err, errInterrupt):
		data, err := json.Marshal(t.scope.interrupts())
		if err != nil {
			return &NodeError{Node: t.name, Step: p.r.step, TaskID: t.id, Err: fmt.Errorf("encode interrupt payload: %w", err)}
		}
		add(checkpoint.InterruptIndex, checkpoint.InterruptChannel, data)
		if len(t.resume) > 0 {
			data, err := json.Marshal(t.resume)
			if err == nil {
				add(checkpoint.ResumeIndex, checkpoint.ResumeChannel, data)
			}
		}
	default:
		data, _ := json.Marshal(checkpoint.TaskError{Node: t.name, Error: t.err.Error()})
		add(checkpoint.ErrorIndex, checkpoint.ErrorChannel, data)
	}
	if err := p.putWrites(t.id, ws); err != nil {
		return p.errorf("save writes of node %q at step %d: %w", t.name, p.r.step, err)
	}
	return nil
}

// successWrites encodes the update of task t, which succeeded, as its
// pending writes.
func (p *persist[S]) successWrites(t *task[S]) ([]checkpoint.PendingWrite, error) {
	ws, err := encodeUpdate(p.r.c, t.update)
	if err != nil {
		return nil, &NodeError{Node: t.name, Step: p.r.step, TaskID: t.id, Err: err}
	}
	if len(ws) == 0 {
		ws = append(ws, checkpoint.PendingWrite{Index: 0, Channel: checkpoint.DoneChannel, Value: []byte(checkpoint.DoneValue)})
	}
	if t.fromCache {
		ws = append(ws, checkpoint.PendingWrite{Index: len(ws), Channel: cachedChannel, Value: []byte(checkpoint.DoneValue)})
	}
	for i := range ws {
		ws[i].TaskID = t.id
	}
	return ws, nil
}

// saveInput stores the input checkpoint of a run with input: at step
// r.step-1, the state before the input, with Start next and the input in
// the checkpoint itself (checkpoint.StartChannel, LangGraph's input
// checkpoint, whose next is ("__start__",) and whose __start__ channel
// holds the input), so the checkpoint and its input are one commit: a
// crash never leaves a thread whose input checkpoint lacks its input. A
// zero input (a subgraph's start) stores no input: its Start task
// applies nothing.
func (p *persist[S]) saveInput(input state.Update[S]) error {
	r := p.r
	r.next.reset()
	r.next.start = true
	r.tasks = r.tasks[:0]
	p.startData = nil
	if !input.IsZero() {
		ws, err := p.successWrites(&task[S]{name: Start, update: input})
		if err != nil {
			return err
		}
		if p.startData, err = checkpoint.AppendStartWrites(nil, ws); err != nil {
			return p.errorf("encode the input at step %d: %w", r.step-1, err)
		}
	}
	return p.save(checkpoint.SourceInput, r.step-1, nil, nil)
}

// saveInterrupts records static interrupts before a step as pending
// writes of the tasks they stopped, so that State and inspectors show
// them. Resuming runs those tasks.
func (p *persist[S]) saveInterrupts(ints []Interruption) error {
	if p.id == "" {
		return nil
	}
	for _, in := range ints {
		data, err := json.Marshal([]Interruption{in})
		if err != nil {
			return p.errorf("save interrupt before node %q: %w", in.Node, err)
		}
		w := []checkpoint.PendingWrite{{TaskID: in.TaskID, Index: checkpoint.InterruptIndex, Channel: checkpoint.InterruptChannel, Value: data}}
		if err := p.putWrites(in.TaskID, w); err != nil {
			return p.errorf("save interrupt before node %q at step %d: %w", in.Node, in.Step, err)
		}
	}
	return nil
}

// heldWrites are a task's writes waiting for their checkpoint to be
// stored (DurabilityExit).
type heldWrites struct {
	taskID string
	writes []checkpoint.PendingWrite
}

// putWrites stores a task's writes against the checkpoint holding the
// task, or holds them until it is stored.
func (p *persist[S]) putWrites(taskID string, ws []checkpoint.PendingWrite) error {
	if err := p.r.lease.err(); err != nil {
		return err
	}
	if p.unsaved {
		p.heldMu.Lock()
		p.held = append(p.held, heldWrites{taskID, ws})
		p.heldMu.Unlock()
		return nil
	}
	if err := p.awaitInflight(); err != nil {
		return err
	}
	cfg := p.cfg
	cfg.CheckpointID = p.id
	ctx, cancel := p.saveCtx()
	defer cancel()
	return p.saver.PutWrites(ctx, cfg, taskID, ws)
}

// markDirty records that the fields touched changed: the next checkpoint
// stores them.
func (p *persist[S]) markDirty(touched []int) {
	for _, i := range touched {
		p.dirty[i] = true
	}
}

// save writes the checkpoint after a step (or the input).
func (p *persist[S]) save(source checkpoint.Source, step int, touched []int, overwritten []bool) error {
	p.markDirty(touched)
	p.nodes, p.trig = nil, nil
	if source != checkpoint.SourceInput {
		p.startData = nil // applied: the state holds the input now
	}
	if source == checkpoint.SourceLoop {
		for _, t := range p.r.tasks {
			if t.name != Start { // one per task: Sends to one node repeat it
				p.nodes = append(p.nodes, t.name)
			}
		}
		p.trig = p.r.triggers()
	}
	if p.r.durability == DurabilityExit && (source == checkpoint.SourceLoop || source == checkpoint.SourceInput) && (!p.r.next.empty() || p.cfg.Namespace != "") {
		// Not stored until the run ends (flush; a nested run's last
		// checkpoint too, which flush stores only when the run stopped).
		// It gets its id now, so the next step's task ids are its own; the
		// writes of the step that just finished are in the state now, so
		// the ones held for it go.
		p.id, p.unsaved, p.unsavedSource, p.unsavedStep = checkpoint.NewIDAfter(max(p.head, p.parent)), true, source, step
		p.held = p.held[:0]
		return nil
	}
	return p.put(source, step, overwritten)
}

// put stores a checkpoint of the run's state now, with the fields marked
// dirty as new blobs.
func (p *persist[S]) put(source checkpoint.Source, step int, overwritten []bool) error {
	if err := p.settle(); err != nil {
		return err
	}
	if err := p.r.lease.err(); err != nil {
		return err
	}
	r := p.r
	sc := r.c.schema
	id := checkpoint.NewIDAfter(max(p.head, p.parent)) // the head decides the order, not this clock
	if p.unsaved {
		id = p.id // task ids were derived from it
	}
	versions := maps.Clone(p.versions)
	blobs := make(map[string]checkpoint.Blob, 2)
	for i, d := range p.dirty {
		if !d {
			continue
		}
		p.dirty[i] = false
		name := sc.Name(i)
		var blob checkpoint.Blob
		var err error
		if sc.Kind(i) == state.KindAppend {
			blob, err = p.appendBlob(i, id, overwritten == nil || !overwritten[i])
		} else {
			blob.Version = id
			blob.Data, err = sc.Encode(&r.st, i, r.c.ser)
		}
		if err != nil {
			return p.errorf("step %d: encode field %q: %w", step, name, err)
		}
		versions[name] = blob.Version
		blobs[name] = blob
	}
	if source == checkpoint.SourceInput && p.startData != nil {
		versions[checkpoint.StartChannel] = id
		blobs[checkpoint.StartChannel] = checkpoint.Blob{Version: id, Data: p.startData}
	} else {
		delete(versions, checkpoint.StartChannel) // the input of an earlier checkpoint
	}
	sched, err := p.encodeSched()
	if err != nil {
		return p.errorf("step %d: encode schedule: %w", step, err)
	}
	if !bytes.Equal(sched, p.sched) || versions[checkpoint.NextChannel] == "" {
		sched = bytes.Clone(sched) // the saver keeps it
		versions[checkpoint.NextChannel] = id
		blobs[checkpoint.NextChannel] = checkpoint.Blob{Version: id, Data: sched}
		p.sched = sched
	}
	md := checkpoint.Metadata{Source: source, Step: step, RunID: r.o.runID, Parents: p.parents, Extra: withTriggers(r.c.withSchemaVersion(r.o.metadata), p.trig)}
	p.trig = nil
	if len(p.nodes) > 0 {
		md.Nodes = p.nodes
		p.nodes = nil // the saver keeps it
	}
	req := checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: p.cfg.ThreadID, Namespace: p.cfg.Namespace, CheckpointID: p.parent},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now().UTC(), Versions: versions, New: blobs},
		Metadata:   md,
		ExpectHead: p.head,
	}
	if p.dry {
		p.id, p.parent, p.head, p.versions = id, id, id, versions
		return nil
	}
	if r.durability == DurabilityAsync && (source == checkpoint.SourceLoop || source == checkpoint.SourceInput) && p.inBackground() {
		p.putAsync(req, step, md)
		p.id, p.parent, p.head, p.versions = id, id, id, versions
		return nil
	}
	ctx, cancel := p.saveCtx()
	defer cancel()
	cfg, err := p.putObserved(ctx, req)
	if err != nil && cancelledDuring(r.ctx, ctx, err) {
		// The run was cancelled while the save ran on its context (a
		// Ctrl-C), and a Put that fails stores nothing: store the finished
		// work again as a save that starts after the cancel does.
		dctx, dcancel := detachedSaveCtx(r.ctx)
		defer dcancel()
		cfg, err = p.putObserved(dctx, req)
	}
	if err != nil {
		return p.errorf("save checkpoint at step %d: %w", step, err)
	}
	p.id, p.parent, p.head, p.versions = id, id, id, versions
	if p.unsaved {
		p.unsaved = false
		for _, h := range p.held {
			if err := p.putWrites(h.taskID, h.writes); err != nil {
				return p.errorf("save writes held for checkpoint %q: %w", id, err)
			}
		}
		p.held = p.held[:0]
	}
	r.c.cache.put(p.key, id, r.st)
	r.emitCheckpoint(cfg, md)
	return nil
}

// putAsync starts storing a checkpoint in the background. The request's
// blobs are already encoded, so the run may change its state meanwhile. The
// save ignores the run's cancellation (within saveTimeout), like a
// synchronous save of finished work.
func (p *persist[S]) putAsync(req checkpoint.PutRequest, step int, md checkpoint.Metadata) {
	f := &inflightPut[S]{done: make(chan struct{}), id: req.Checkpoint.ID, step: step, md: md, st: p.r.st,
		prevID: p.id, prevParent: p.parent, prevHead: p.head, prevVersions: p.versions}
	ctx, cancel := detachedSaveCtx(p.r.ctx)
	p.inflight = f
	ctx, observed := p.observeSave(ctx, &req)
	go func() {
		defer close(f.done)
		defer cancel()
		now := p.r.c.now
		start := now()
		f.cfg, f.err = p.saver.Put(ctx, req)
		f.took = now().Sub(start)
		observed(f.err)
	}()
}

// asyncMinOverlap is the least time a background save must be able to
// overlap for DurabilityAsync to store it in the background: see
// inBackground.
const asyncMinOverlap = 25 * time.Microsecond

// inBackground says whether a DurabilityAsync checkpoint is stored in the
// background (putAsync) or inline, as DurabilitySync stores it.
//
// Overlap only pays when there is something to overlap with. A
// background save costs a goroutine, a context and two hand-offs between
// goroutines: 2.5 µs a step with the memory saver and ~15 µs with SQLite
// on a 2-core machine, where a trivial node takes ~1 µs, so with quick
// nodes async was up to 1.9× slower than sync. What it gains is the part
// of the save that the next step's nodes overlap: at most the shorter of
// the save and those nodes. The run predicts both from the last step —
// the longest a node of it ran (run.tasksTook) and the last Put
// (lastSave) — and saves in the background only when the shorter is at
// least asyncMinOverlap (25 µs, over the cost measured: a SQLite commit,
// ~50 µs, still overlaps a node that waits), so the gain exceeds the
// cost. Until the run has timed a save and a step's nodes (the input's
// checkpoint and step 0's, as a rule), it keeps the mode's default, the
// background: with slow nodes those saves overlap too, and with quick
// ones two background saves a run cost little. A
// checkpoint stored inline is stored before the next step starts: the
// mode's promises (order, writes after their checkpoint, a failed save
// ends the run on the checkpoint before) hold either way, and the crash
// window only shrinks.
func (p *persist[S]) inBackground() bool {
	r := p.r
	if r.c.alwaysInBackground || !r.tasksTimed || !p.saveTimed {
		return true
	}
	return min(r.tasksTook, p.lastSave) >= asyncMinOverlap
}

// settle waits for the checkpoint being stored in the background, if any,
// then does what a synchronous save does after Put: it caches the state and
// emits the Checkpoints event. It runs on the run's goroutine, between steps.
func (p *persist[S]) settle() error {
	f := p.inflight
	if f == nil {
		return nil
	}
	p.inflight = nil
	<-f.done
	p.lastSave, p.saveTimed = f.took, true
	if f.err != nil {
		// Not stored: the run's last checkpoint is the one before it.
		p.id, p.parent, p.head, p.versions = f.prevID, f.prevParent, f.prevHead, f.prevVersions
		return p.errorf("save checkpoint at step %d: %w", f.step, f.err)
	}
	p.r.c.cache.put(p.key, f.id, f.st)
	p.r.emitCheckpoint(f.cfg, f.md)
	return nil
}

// awaitInflight waits until the checkpoint being stored in the background,
// if any, is stored; writes against it may be stored then. Tasks call it.
func (p *persist[S]) awaitInflight() error {
	f := p.inflight
	if f == nil {
		return nil
	}
	<-f.done
	if f.err != nil {
		return fmt.Errorf("checkpoint %q was not stored: %w", f.id, f.err)
	}
	return nil
}

// noCancel is the cancel func of a save that uses the run's own context.
var noCancel context.CancelFunc = func() {}

// saveTimeout bounds a save that runs after the run was cancelled.
const saveTimeout = 30 * time.Second

// saveCtx is the context of a save. Finished work is stored even while
// the run is being cancelled (a Stream consumer stopped, Ctrl-C): the save
// ignores the run's cancellation, within saveTimeout. The run stops right
// after it.
func (p *persist[S]) saveCtx() (context.Context, context.CancelFunc) {
	if p.r.ctx.Err() == nil {
		return p.r.ctx, noCancel
	}
	return detachedSaveCtx(p.r.ctx)
}

// putObserved stores req on ctx, observed, timing it for inBackground.
func (p *persist[S]) putObserved(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	r := p.r
	ctx, observed := p.observeSave(ctx, &req)
	var start time.Time
	if r.timeTasks {
		start = r.c.now()
	}
	cfg, err := p.saver.Put(ctx, req)
	if r.timeTasks {
		p.lastSave, p.saveTimed = r.c.now().Sub(start), true
	}
	observed(err)
	return cfg, err
}

// cancelledDuring reports whether err is the failure of a save that ran on
// the run's context runCtx (ctx is runCtx) and ended because runCtx was
// cancelled meanwhile.
func cancelledDuring(runCtx, ctx context.Context, err error) bool {
	cerr := runCtx.Err()
	return ctx == runCtx && cerr != nil && errors.Is(err, cerr)
}

// detachedSaveCtx is the context of a save that ignores the cancellation
// of the run's context ctx, within saveTimeout: a save of finished work
// that must not be lost to a Ctrl-C (a background save, one that starts
// after the run was cancelled, and one that a cancel interrupted).
func detachedSaveCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
}

// flush waits for a checkpoint still being stored (DurabilityAsync) and
// stores the final checkpoint of a DurabilityExit run, with the writes and
// interrupts of its pending tasks. A nested run (a subgraph, a graph a
// node invokes) that ended without runErr stores nothing, as LangGraph's
// exit: its parent's checkpoint records the result, and only a subgraph
// that stopped (an interrupt, an error) has to be gone on with.
func (p *persist[S]) flush(runErr error) error {
	if err := p.settle(); err != nil {
		return err
	}
	if !p.unsaved {
		return nil
	}
	if runErr == nil && p.cfg.Namespace != "" {
		p.unsaved, p.held = false, p.held[:0]
		return nil
	}
	return p.put(p.unsavedSource, p.unsavedStep, nil)
}
