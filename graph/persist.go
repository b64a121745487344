package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// Reserved channels of the runtime, beside the schema's fields.
const (
	nextChannel = "__next__" // the schedule: what runs in the next step
	gotoChannel = "__goto__" // a task's goto, in its pending writes
	sendChannel = "__send__" // a task's Send, in its pending writes
	doneChannel = "__done__" // marks a task that finished writing nothing
)

// Indices of the special pending writes (negative: they replace).
const (
	errorIdx     = -1
	interruptIdx = -3
	resumeIdx    = -4
)

// minSnapshotGap is the fewest appended elements an append field stores
// as deltas before a full snapshot; after that, a snapshot is taken when
// the deltas hold as many elements as the last snapshot, so a step costs
// O(1) amortized and a read O(length).
const minSnapshotGap = 64

// persist connects a run to its checkpointer.
type persist[S any] struct {
	r         *run[S]
	saver     checkpoint.Saver
	cfg       checkpoint.Config // thread and namespace
	id        string            // the checkpoint holding the next step's tasks
	head      string            // the head the next Put expects
	versions  map[string]string
	tracks    []appendTrack
	sched     []byte
	pending   map[string][]checkpoint.PendingWrite // by task id, for the first step after a load
	resumes   map[string][]any                     // new resume values by task id
	resumeIDs map[string]map[string]any            // the same by interrupt id, by task id
	// replayedFrom is the checkpoint a replay with resume values forked:
	// pending, resumes and resumeIDs are keyed by the tasks' ids there.
	replayedFrom string
	parents      map[string]string
	dirty        []bool // fields changed since the last Put (DurabilityExit)
	nodes        []string
	schedBuf     []byte
	names        []string
	key          string // the state cache's key of the thread and namespace
	// reuse, when set, may fill field i of st at version v from a state
	// already decoded, instead of decoding it (History).
	reuse func(st *S, i int, v string) bool
	// parent is the newest stored checkpoint of this run: the parent of the
	// next one. Under DurabilityExit, id may name a checkpoint not stored
	// yet (unsaved), whose tasks' writes wait in held.
	parent        string
	unsaved       bool
	unsavedSource checkpoint.Source
	unsavedStep   int
	held          []heldWrites
	heldMu        sync.Mutex // tasks of a step finish concurrently
	// inflight is the checkpoint being stored in the background
	// (DurabilityAsync). It is set and cleared on the run's goroutine
	// between steps; tasks only wait for it.
	inflight *inflightPut[S]
}

// inflightPut is a checkpoint being stored in the background.
type inflightPut[S any] struct {
	done chan struct{} // closed when Put returned
	id   string
	step int
	md   checkpoint.Metadata
	st   S // the state it holds, for the state cache
	cfg  checkpoint.Config
	err  error
}

type appendTrack struct {
	lastLen int   // length at the last save
	snapLen int   // length at the last full snapshot
	chain   int   // elements stored as deltas since that snapshot
	segs    []seg // this run's deltas since the snapshot, oldest first
}

// seg is one delta blob of an append field: the elements from start on,
// extending base. Deltas are merged like the levels of an LSM tree: when
// the newest mergeFanout deltas share a level, the next delta is written
// as one blob covering all of them (from their base), a level up. Reading
// the newest value then follows O(log n) blobs, and each element is
// written O(log n) times.
type seg struct {
	base  string
	start int
	level int
}

// mergeFanout is how many deltas of one level are merged into one.
const mergeFanout = 8

// nextDelta returns the base and start of the delta to write for an
// append field that grew from lastLen, merging levels when due.
func (tr *appendTrack) nextDelta(prevVersion string) (base string, start int) {
	s := seg{base: prevVersion, start: tr.lastLen}
	for {
		k := len(tr.segs)
		if k < mergeFanout-1 {
			break
		}
		lvl := tr.segs[k-1].level
		same := true
		for _, x := range tr.segs[k-(mergeFanout-1):] {
			same = same && x.level == lvl
		}
		if !same || s.level != lvl {
			break
		}
		first := tr.segs[k-(mergeFanout-1)]
		s = seg{base: first.base, start: first.start, level: lvl + 1}
		tr.segs = tr.segs[:k-(mergeFanout-1)]
	}
	tr.segs = append(tr.segs, s)
	return s.base, s.start
}

func newPersist[S any](r *run[S], saver checkpoint.Saver) *persist[S] {
	p := &persist[S]{
		r:        r,
		saver:    saver,
		cfg:      checkpoint.Config{ThreadID: r.o.thread, Namespace: r.ns},
		versions: map[string]string{},
		tracks:   make([]appendTrack, r.c.schema.Len()),
		dirty:    make([]bool, r.c.schema.Len()),
	}
	p.key = cacheKey(p.cfg.ThreadID, p.cfg.Namespace)
	if pi := parentOf(r.ctx); pi != nil && pi.checkpointID != "" {
		p.parents = map[string]string{pi.parentNS: pi.checkpointID}
	}
	return p
}

func (p *persist[S]) errorf(format string, args ...any) error {
	return fmt.Errorf("graph: thread %q: "+format, append([]any{p.cfg.ThreadID}, args...)...)
}

// load reads the thread. It reports true when the run continues from the
// loaded checkpoint (resume or replay) and false when the input must be
// applied (a new thread, or new input on top of the thread's state).
func (p *persist[S]) load(input state.Update[S]) (bool, error) {
	r := p.r
	latest, err := p.saver.Get(r.ctx, p.cfg)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		latest = nil
	case err != nil:
		return false, p.errorf("read latest checkpoint: %w", err)
	}
	if latest != nil {
		p.head = latest.Config.CheckpointID
	}
	zero := input.IsZero()
	if id := r.o.checkpointID; id != "" {
		cfg := p.cfg
		cfg.CheckpointID = id
		tup, err := p.saver.Get(r.ctx, cfg)
		if err != nil {
			return false, p.errorf("read checkpoint %q: %w", id, err)
		}
		if err := p.restore(tup); err != nil {
			return false, err
		}
		if !zero {
			r.step = tup.Metadata.Step + 2
			return false, nil
		}
		// Replay: a fork of the pinned checkpoint starts a new branch; the
		// tasks pending there run again. Like a resume, it does not stop
		// again at an interrupt-before that the pinned checkpoint stopped at,
		// and resume values answer the interrupts pending there.
		if err := p.replayResumes(tup); err != nil {
			return false, err
		}
		if err := p.put(checkpoint.SourceFork, tup.Metadata.Step, nil); err != nil {
			return false, err
		}
		r.step = tup.Metadata.Step + 1
		r.resuming = true
		return true, nil
	}
	if latest == nil {
		if len(r.o.resume) > 0 || r.o.resumeByID != nil {
			return false, p.errorf("%w: the thread has no checkpoint", ErrNothingToResume)
		}
		return false, nil
	}
	if err := p.restore(latest); err != nil {
		return false, err
	}
	r.step = latest.Metadata.Step + 1
	if !zero {
		r.step++ // the input checkpoint takes the next step number
		return false, nil
	}
	p.pending = groupPending(latest.PendingWrites)
	if err := p.matchResumes(); err != nil {
		return false, err
	}
	r.resuming = true
	return true, nil
}

// replayResumes matches the run's resume values with the interrupts
// pending at the pinned checkpoint tup of a replay. The replay's tasks get
// new ids (the fork's), so restoreTasks finds the answers by the ids the
// tasks had at tup (replayedFrom). Only the answers and the values given
// before them are kept: the tasks run again, as on any replay.
func (p *persist[S]) replayResumes(tup *checkpoint.Tuple) error {
	o := p.r.o
	if len(o.resume) == 0 && o.resumeByID == nil {
		return nil
	}
	p.pending = groupPending(tup.PendingWrites)
	if err := p.matchResumes(); err != nil {
		return err
	}
	for owner, byID := range p.resumeIDs {
		for id := range byID {
			if !raisedBy(p.pending[owner], id) {
				return p.errorf("checkpoint %q: interrupt %q was raised in a subgraph: a replay cannot answer it (resume the thread's latest checkpoint instead)", tup.Config.CheckpointID, id)
			}
		}
	}
	for id, ws := range p.pending {
		p.pending[id] = slices.DeleteFunc(ws, func(w checkpoint.PendingWrite) bool { return w.Channel != checkpoint.ResumeChannel })
	}
	p.replayedFrom = tup.Config.CheckpointID
	return nil
}

// raisedBy reports whether one of a task's interrupt writes holds the
// interrupt id raised by the task itself, not by a subgraph it ran.
func raisedBy(ws []checkpoint.PendingWrite, id string) bool {
	for _, w := range ws {
		if w.Channel != checkpoint.InterruptChannel {
			continue
		}
		var ints []Interruption
		if json.Unmarshal(w.Value, &ints) != nil {
			continue
		}
		for _, in := range ints {
			if in.ID == id && in.TaskID == w.TaskID {
				return true
			}
		}
	}
	return false
}

// restore decodes a checkpoint into the run's state and schedule.
func (p *persist[S]) restore(tup *checkpoint.Tuple) error {
	r := p.r
	sc := r.c.schema
	id := tup.Config.CheckpointID
	st, hit := r.c.cache.get(p.key, id)
	if hit {
		// The cached state shares memory with the run that saved it, which
		// goes on appending in place: take copies of the append fields.
		sc.CloneAppends(&st)
	}
	for name, v := range tup.Checkpoint.Values {
		if name == nextChannel {
			if err := p.decodeSched(v.Snapshot); err != nil {
				return p.errorf("checkpoint %q: schedule: %w: %w", id, checkpoint.ErrCorrupt, err)
			}
			p.sched = v.Snapshot
			continue
		}
		i := sc.Index(name)
		if i < 0 {
			continue // a field the schema no longer has
		}
		if !hit && (p.reuse == nil || !p.reuse(&st, i, tup.Checkpoint.Versions[name])) {
			if err := sc.Decode(&st, i, v.Snapshot, v.Deltas, r.c.ser); err != nil {
				return p.errorf("checkpoint %q: %w: %w", id, checkpoint.ErrCorrupt, err)
			}
		}
		if sc.Kind(i) == state.KindAppend {
			n := sc.FieldLen(&st, i)
			p.tracks[i] = appendTrack{lastLen: n, snapLen: n, chain: len(v.Deltas)}
		}
	}
	r.st = st
	p.versions = maps.Clone(tup.Checkpoint.Versions)
	if p.versions == nil {
		p.versions = map[string]string{}
	}
	p.id, p.parent = id, id
	return nil
}

// taskID derives a task's id from the checkpoint that holds it, the
// namespace, the step, the node and, for a Send, its position.
func (p *persist[S]) taskID(step int, t *task[S]) string {
	return p.taskIDAt(p.id, step, t)
}

// taskIDAt is the id task t of step would have in checkpoint cp.
func (p *persist[S]) taskIDAt(cp string, step int, t *task[S]) string {
	return checkpoint.TaskID(cp, p.cfg.Namespace, step, t.name, sendIndex(t))
}

// groupPending groups a checkpoint's pending writes by task. A task that
// failed or was interrupted on an earlier attempt and has since finished
// has both kinds of writes (the savers keep writes per task and index, and
// a success does not clear the error slot): its successful writes win, and
// its error, interrupt and resume writes are dropped, so it is done, its
// interrupts are no longer pending, and it never runs again.
func groupPending(ws []checkpoint.PendingWrite) map[string][]checkpoint.PendingWrite {
	out := map[string][]checkpoint.PendingWrite{}
	for _, w := range ws {
		out[w.TaskID] = append(out[w.TaskID], w)
	}
	for id := range checkpoint.FinishedTasks(ws) {
		out[id] = slices.DeleteFunc(out[id], func(w checkpoint.PendingWrite) bool { return w.Index < 0 })
	}
	return out
}

// restoreTasks re-attaches saved writes to the tasks of the first step
// after a load: a task that finished is not run again.
func (r *run[S]) restoreTasks() {
	p := r.cp
	if p.pending == nil && p.resumes == nil {
		return
	}
	for _, t := range r.tasks {
		key := t.id
		if p.replayedFrom != "" {
			key = p.taskIDAt(p.replayedFrom, r.step, t) // its id at the pinned checkpoint
		}
		ws := p.pending[key]
		var failed bool
		for _, w := range ws {
			switch w.Channel {
			case checkpoint.ErrorChannel, checkpoint.InterruptChannel:
				failed = true
			case checkpoint.ResumeChannel:
				var prev []json.RawMessage
				if json.Unmarshal(w.Value, &prev) == nil {
					t.resume = t.resume[:0]
					for _, v := range prev {
						t.resume = append(t.resume, v)
					}
				}
			}
		}
		t.resume = append(t.resume, p.resumes[key]...)
		if byID := p.resumeIDs[key]; byID != nil && key == t.id {
			t.resumeByID = byID
		}
		if len(ws) == 0 || failed || p.replayedFrom != "" {
			continue
		}
		upd, err := p.decodeTaskWrites(ws)
		if err != nil {
			continue // undecodable writes: run the task again
		}
		t.update, t.cached = upd, true
	}
	p.pending, p.resumes, p.resumeIDs, p.replayedFrom = nil, nil, nil, ""
}

func (p *persist[S]) decodeTaskWrites(ws []checkpoint.PendingWrite) (state.Update[S], error) {
	var upd state.Update[S]
	sc := p.r.c.schema
	for _, w := range ws {
		switch w.Channel {
		case doneChannel, checkpoint.ResumeChannel:
		case gotoChannel:
			var to []string
			if err := json.Unmarshal(w.Value, &to); err != nil {
				return upd, err
			}
			upd.Goto = append(upd.Goto, to...)
		case sendChannel:
			s, err := p.decodeSend(w.Value)
			if err != nil {
				return upd, err
			}
			upd.Sends = append(upd.Sends, s)
		default:
			wr, err := sc.DecodeWrite(w.Channel, w.Value, p.r.c.ser)
			if err != nil {
				return upd, err
			}
			upd.Writes = append(upd.Writes, wr)
		}
	}
	return upd, nil
}

// saveTask stores a finished task's writes, or its error, or its
// interrupts with the resume values it was given.
//
// A step's only task that succeeded saves nothing here: the step's
// checkpoint, stored right after it, records its writes, so a durable
// sequential step costs one commit. A crash in between re-runs the task,
// exactly as a crash before its writes were saved would.
func (p *persist[S]) saveTask(t *task[S]) error {
	if p.id == "" {
		return nil
	}
	if t.err == nil && len(p.r.tasks) == 1 {
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
		sc := p.r.c.schema
		for i, w := range t.update.Writes {
			ch, data, err := sc.EncodeWrite(w, p.r.c.ser)
			if err != nil {
				return &NodeError{Node: t.name, Step: p.r.step, TaskID: t.id, Err: err}
			}
			add(i, ch, data)
		}
		if len(t.update.Goto) > 0 {
			data, _ := json.Marshal(t.update.Goto)
			add(len(ws), gotoChannel, data)
		}
		for _, s := range t.update.Sends {
			data, err := p.encodeSend(s)
			if err != nil {
				return &NodeError{Node: t.name, Step: p.r.step, TaskID: t.id, Err: err}
			}
			add(len(ws), sendChannel, data)
		}
		if len(ws) == 0 {
			add(0, doneChannel, []byte("true"))
		}
	case errors.Is(t.err, errInterrupt):
		data, err := json.Marshal(t.scope.interrupts())
		if err != nil {
			return &NodeError{Node: t.name, Step: p.r.step, TaskID: t.id, Err: fmt.Errorf("encode interrupt payload: %w", err)}
		}
		add(interruptIdx, checkpoint.InterruptChannel, data)
		if len(t.resume) > 0 {
			data, err := json.Marshal(t.resume)
			if err == nil {
				add(resumeIdx, checkpoint.ResumeChannel, data)
			}
		}
	default:
		data, _ := json.Marshal(taskError{Node: t.name, Error: t.err.Error()})
		add(errorIdx, checkpoint.ErrorChannel, data)
	}
	if err := p.putWrites(t.id, ws); err != nil {
		return p.errorf("save writes of node %q at step %d: %w", t.name, p.r.step, err)
	}
	return nil
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
		w := []checkpoint.PendingWrite{{TaskID: in.TaskID, Index: interruptIdx, Channel: checkpoint.InterruptChannel, Value: data}}
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

// taskError is the value of an ErrorChannel write.
type taskError struct {
	Node  string `json:"node"`
	Error string `json:"error"`
}

// save writes the checkpoint after a step (or the input).
func (p *persist[S]) save(source checkpoint.Source, step int, touched []int, overwritten []bool) error {
	for _, i := range touched {
		p.dirty[i] = true
	}
	p.nodes = nil
	for _, t := range p.r.tasks {
		if source == checkpoint.SourceLoop && !slices.Contains(p.nodes, t.name) {
			p.nodes = append(p.nodes, t.name)
		}
	}
	if p.r.durability == DurabilityExit && source == checkpoint.SourceLoop && !p.r.next.empty() {
		// Not stored until the run ends (flush). It gets its id now, so the
		// next step's task ids are its own; the writes of the step that
		// just finished are in the state now, so the ones held for it go.
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
		blob := checkpoint.Blob{Version: id}
		version := id
		var err error
		if sc.Kind(i) == state.KindAppend {
			tr := &p.tracks[i]
			n := sc.FieldLen(&r.st, i)
			added := n - tr.lastLen
			base, hasBase := p.versions[name]
			if hasBase && added >= 0 && (overwritten == nil || !overwritten[i]) && tr.chain+added < max(minSnapshotGap, tr.snapLen) && r.durability != DurabilityExit {
				from := 0
				blob.Base, from = tr.nextDelta(base)
				blob.Data, err = sc.EncodeTail(&r.st, i, from, r.c.ser)
				blob.Delta = true
				tr.chain += added
			} else {
				blob.Data, err = sc.Encode(&r.st, i, r.c.ser)
				tr.snapLen, tr.chain, tr.segs = n, 0, tr.segs[:0]
			}
			tr.lastLen = n
			version = appendVersion(id, n, blob.Delta)
			blob.Version = version
		} else {
			blob.Data, err = sc.Encode(&r.st, i, r.c.ser)
		}
		if err != nil {
			return p.errorf("step %d: encode field %q: %w", step, name, err)
		}
		versions[name] = version
		blobs[name] = blob
	}
	sched, err := p.encodeSched()
	if err != nil {
		return p.errorf("step %d: encode schedule: %w", step, err)
	}
	if !bytes.Equal(sched, p.sched) || versions[nextChannel] == "" {
		sched = bytes.Clone(sched) // the saver keeps it
		versions[nextChannel] = id
		blobs[nextChannel] = checkpoint.Blob{Version: id, Data: sched}
		p.sched = sched
	}
	md := checkpoint.Metadata{Source: source, Step: step, RunID: r.o.runID, Parents: p.parents, Extra: r.o.metadata}
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
	if r.durability == DurabilityAsync && (source == checkpoint.SourceLoop || source == checkpoint.SourceInput) {
		p.putAsync(req, step, md)
		p.id, p.parent, p.head, p.versions = id, id, id, versions
		return nil
	}
	ctx, cancel := p.saveCtx()
	defer cancel()
	cfg, err := p.saver.Put(ctx, req)
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
	f := &inflightPut[S]{done: make(chan struct{}), id: req.Checkpoint.ID, step: step, md: md, st: p.r.st}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.r.ctx), saveTimeout)
	p.inflight = f
	go func() {
		defer close(f.done)
		defer cancel()
		f.cfg, f.err = p.saver.Put(ctx, req)
	}()
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
	if f.err != nil {
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

// appendVersion names the version of an append field: the checkpoint id,
// then the field's length, then 'd' when the value was stored as a delta
// (it extends the value before it) or 's' for a snapshot. History uses
// them to slice an older value out of a newer one instead of decoding it.
func appendVersion(id string, n int, delta bool) string {
	kind := "s"
	if delta {
		kind = "d"
	}
	return id + "." + strconv.Itoa(n) + kind
}

// parseAppendVersion returns the length and delta flag of an append
// field's version, and false for a version not made by appendVersion.
func parseAppendVersion(v string) (n int, delta, ok bool) {
	dot := strings.LastIndexByte(v, '.')
	if dot < 0 || len(v) < dot+3 {
		return 0, false, false
	}
	kind := v[len(v)-1]
	if kind != 'd' && kind != 's' {
		return 0, false, false
	}
	n, err := strconv.Atoi(v[dot+1 : len(v)-1])
	if err != nil || n < 0 {
		return 0, false, false
	}
	return n, kind == 'd', true
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
	return context.WithTimeout(context.WithoutCancel(p.r.ctx), saveTimeout)
}

// flush waits for a checkpoint still being stored (DurabilityAsync) and
// stores the final checkpoint of a DurabilityExit run, with the writes and
// interrupts of its pending tasks.
func (p *persist[S]) flush() error {
	if err := p.settle(); err != nil {
		return err
	}
	if !p.unsaved {
		return nil
	}
	return p.put(p.unsavedSource, p.unsavedStep, nil)
}

type schedJSON struct {
	Nodes []string            `json:"nodes,omitempty"`
	Sends []json.RawMessage   `json:"sends,omitempty"`
	Joins map[string][]string `json:"joins,omitempty"`
}

type sendJSON struct {
	Node string            `json:"node"`
	Arg  map[string][]byte `json:"arg"`
	// Full is the whole argument, when the serializer can encode it:
	// a Send's input may carry fields the schema does not track.
	Full []byte `json:"full,omitempty"`
}

func joinKey(j join) string { return strings.Join(j.srcs, ",") + ">" + j.dst }

func (p *persist[S]) encodeSched() ([]byte, error) {
	r := p.r
	if len(r.next.sends) == 0 && !anyJoin(r.next.joins) {
		// The common case, written by hand: {"nodes":["a","b"]}.
		b := p.schedBuf[:0]
		b = append(b, '{')
		if len(r.next.nodes) > 0 {
			b = append(b, `"nodes":[`...)
			for i, n := range sortedNames(r.next.nodes, &p.names) {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendQuote(b, n)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
		p.schedBuf = b
		return b, nil
	}
	var s schedJSON
	s.Nodes = r.next.names()
	for _, snd := range r.next.sends {
		data, err := p.encodeSend(snd)
		if err != nil {
			return nil, err
		}
		s.Sends = append(s.Sends, data)
	}
	for ji, seen := range r.next.joins {
		var done []string
		for k, ok := range seen {
			if ok {
				done = append(done, r.c.joins[ji].srcs[k])
			}
		}
		if len(done) > 0 {
			if s.Joins == nil {
				s.Joins = map[string][]string{}
			}
			s.Joins[joinKey(r.c.joins[ji])] = done
		}
	}
	return json.Marshal(s)
}

// parseNodesOnly reads the common schedule that encodeSched writes by
// hand — {} or {"nodes":["a","b"]} with plain names — without
// encoding/json. It reports false for anything else.
func parseNodesOnly(data []byte) ([]string, bool) {
	s := string(data)
	if s == "{}" {
		return nil, true
	}
	body, ok := strings.CutPrefix(s, `{"nodes":[`)
	if !ok {
		return nil, false
	}
	body, ok = strings.CutSuffix(body, `]}`)
	if !ok || body == "" {
		return nil, false
	}
	names := strings.Split(body, ",")
	for i, q := range names {
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' || strings.ContainsAny(q[1:len(q)-1], `"\`) {
			return nil, false
		}
		names[i] = q[1 : len(q)-1]
	}
	return names, true
}

// sortedNames returns the nodes' names sorted, in *buf's memory.
func sortedNames[S any](nodes []*node[S], buf *[]string) []string {
	*buf = (*buf)[:0]
	for _, n := range nodes {
		*buf = append(*buf, n.name)
	}
	slices.Sort(*buf)
	return *buf
}

func anyJoin(joins [][]bool) bool {
	for _, j := range joins {
		if slices.Contains(j, true) {
			return true
		}
	}
	return false
}

func (p *persist[S]) decodeSched(data []byte) error {
	r := p.r
	var s schedJSON
	if nodes, ok := parseNodesOnly(data); ok {
		s.Nodes = nodes
	} else if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	r.next.reset()
	for _, n := range s.Nodes {
		nd := r.c.nodes[n]
		if nd == nil {
			return fmt.Errorf("scheduled node %q is not in the graph", n)
		}
		r.next.add(nd)
	}
	for _, raw := range s.Sends {
		snd, err := p.decodeSend(raw)
		if err != nil {
			return err
		}
		r.next.sends = append(r.next.sends, snd)
	}
	for ji, j := range r.c.joins {
		clear(r.next.joins[ji])
		for _, src := range s.Joins[joinKey(j)] {
			if k := slices.Index(j.srcs, src); k >= 0 {
				r.next.joins[ji][k] = true
			}
		}
	}
	return nil
}

func (p *persist[S]) encodeSend(s state.Send[S]) ([]byte, error) {
	arg, err := p.r.c.schema.EncodeState(&s.Arg, p.r.c.ser)
	if err != nil {
		return nil, fmt.Errorf("send to %q: %w", s.Node, err)
	}
	full, _ := p.r.c.ser.Marshal(s.Arg) // best effort: unexported fields need the schema's copy
	return json.Marshal(sendJSON{Node: s.Node, Arg: arg, Full: full})
}

func (p *persist[S]) decodeSend(data []byte) (state.Send[S], error) {
	var sj sendJSON
	if err := json.Unmarshal(data, &sj); err != nil {
		return state.Send[S]{}, err
	}
	if p.r.c.nodes[sj.Node] == nil {
		return state.Send[S]{}, fmt.Errorf("send to %q: not a node of the graph", sj.Node)
	}
	var arg S
	if len(sj.Full) > 0 {
		if err := p.r.c.ser.Unmarshal(sj.Full, &arg); err != nil {
			return state.Send[S]{}, fmt.Errorf("send to %q: %w", sj.Node, err)
		}
	}
	sc := p.r.c.schema
	for name, data := range sj.Arg {
		i := sc.Index(name)
		if i < 0 {
			return state.Send[S]{}, fmt.Errorf("send to %q: no field %q in the schema", sj.Node, name)
		}
		if err := sc.Decode(&arg, i, data, nil, p.r.c.ser); err != nil {
			return state.Send[S]{}, fmt.Errorf("send to %q: %w", sj.Node, err)
		}
	}
	return state.Send[S]{Node: sj.Node, Arg: arg}, nil
}

// matchResumes assigns the call's resume values to the pending
// interrupts they answer.
func (p *persist[S]) matchResumes() error {
	o := p.r.o
	if len(o.resume) == 0 && o.resumeByID == nil {
		return nil
	}
	// Each pending interrupt with the task that owns its write: the task
	// that runs again. For a subgraph that is the parent's task, while the
	// interrupt names the subgraph's own task.
	type owned struct {
		Interruption
		owner string
	}
	var pending []owned
	for _, ws := range p.pending {
		for _, w := range ws {
			if w.Channel == checkpoint.InterruptChannel {
				var ints []Interruption
				if err := json.Unmarshal(w.Value, &ints); err != nil {
					return p.errorf("checkpoint %q: interrupt of task %q: %w: %w", p.id, w.TaskID, checkpoint.ErrCorrupt, err)
				}
				for _, in := range ints {
					pending = append(pending, owned{in, w.TaskID})
				}
			}
		}
	}
	slices.SortFunc(pending, func(a, b owned) int { return strings.Compare(a.ID, b.ID) })
	p.resumes = map[string][]any{}
	p.resumeIDs = map[string]map[string]any{}
	answer := func(in owned, v any) {
		p.resumes[in.owner] = append(p.resumes[in.owner], v)
		if p.resumeIDs[in.owner] == nil {
			p.resumeIDs[in.owner] = map[string]any{}
		}
		p.resumeIDs[in.owner][in.ID] = v
	}
	if o.resumeByID != nil {
		for _, id := range sortedKeys(o.resumeByID) {
			i := slices.IndexFunc(pending, func(in owned) bool { return in.ID == id })
			if i < 0 {
				return p.errorf("%w: no pending interrupt has id %q", ErrNothingToResume, id)
			}
			answer(pending[i], o.resumeByID[id])
		}
		return nil
	}
	switch len(pending) {
	case 0:
		return p.errorf("%w: the thread has no pending interrupt", ErrNothingToResume)
	case 1:
		for _, v := range o.resume {
			answer(pending[0], v)
		}
		return nil
	}
	ids := make([]string, len(pending))
	for i, in := range pending {
		ids[i] = fmt.Sprintf("%s (node %q)", in.ID, in.Node)
	}
	return p.errorf("%w: %d interrupts are pending, so one resume value is ambiguous: answer them with graph.ResumeByID using the ids %s", ErrAmbiguousResume, len(pending), strings.Join(ids, ", "))
}
