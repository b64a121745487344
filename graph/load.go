package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// decoded is a checkpoint decoded against the compiled graph: its state,
// the schedule of its next step, and what a run needs to go on from it
// (the fields' versions, the append fields' tracks, the schedule's bytes).
// A run starts from one (persist.restore); State, History and UpdateState
// read one without building a run.
type decoded[S any] struct {
	tup      *checkpoint.Tuple
	cfg      checkpoint.Config // thread and namespace
	st       S
	next     schedule[S]
	sched    []byte // the schedule as stored
	versions map[string]string
	tracks   []appendTrack // by field; set for the append fields
	migrated bool          // read from an older schema version (schemaversion.go)
	// The memory of pendingTasks' tasks, reused by the next decodeInto
	// into the same decoded.
	taskBuf []task[S]
	tasks   []*task[S]
}

// step is the step the decoded checkpoint's tasks run at.
func (d *decoded[S]) step() int { return d.tup.Metadata.Step + 1 }

// decode decodes tup, a checkpoint of cfg's thread and namespace, for a
// run to go on from (or UpdateState). The state comes from the state
// cache when it holds it.
func (c *Compiled[S]) decode(tup *checkpoint.Tuple, cfg checkpoint.Config) (*decoded[S], error) {
	d := new(decoded[S])
	if err := c.decodeInto(d, tup, cfg, decodeOptions[S]{}); err != nil {
		return nil, err
	}
	return d, nil
}

// decodeOptions say how decodeInto reads a checkpoint.
type decodeOptions[S any] struct {
	// reuse, when set, fills fields from the decoded child checkpoint
	// instead of decoding them (History, with view; see reuseFrom).
	reuse *reuseFrom[S]
	// cached, when set, is the checkpoint's state, taken rather than
	// looked up in the state cache: State's read of a head
	// (checkpoint.HeadGetter), whose tuple has no field values, passes
	// the state it found cached, so an entry that a run replaces
	// meanwhile does not leave it without one.
	cached *S
	// view says the decoded checkpoint is only read (State, History):
	// it needs neither a copy of the versions nor the append fields'
	// tracks, which only a run going on from it uses.
	view bool
	// schedules, when set, remembers the schedules parsed (History).
	schedules *schedMemo
}

// decodeInto decodes tup, a checkpoint of cfg's thread and namespace,
// into d, whose memory (the schedule, the task buffers) it reuses: History
// decodes every checkpoint into one.
func (c *Compiled[S]) decodeInto(d *decoded[S], tup *checkpoint.Tuple, cfg checkpoint.Config, o decodeOptions[S]) error {
	sc := c.schema
	id := tup.Config.CheckpointID
	if err := liftStart(tup, cfg); err != nil {
		return err
	}
	migrated, err := c.migrateStored(tup, cfg) // an older schema's checkpoint, brought up to date in place
	if err != nil {
		return err
	}
	reuse, cached := o.reuse, o.cached
	if migrated {
		reuse = nil
	}
	d.tup, d.cfg, d.migrated, d.sched = tup, cfg, migrated, nil
	if d.next.marked == nil {
		d.next = newSchedule(c)
	} else {
		d.next.reset()
		for _, j := range d.next.joins {
			clear(j)
		}
	}
	d.tracks = nil
	if !o.view {
		d.tracks = make([]appendTrack, sc.Len())
	}
	st := &d.st // decoded in place: a local state would escape, an allocation a checkpoint
	var hit bool
	if cached != nil {
		*st, hit = *cached, true
	} else {
		*st, hit = c.cache.get(cacheKey(cfg.ThreadID, cfg.Namespace), id)
	}
	if hit {
		// The cached state shares memory with the run that saved it, which
		// goes on appending in place: take copies of the append fields.
		sc.CloneAppends(st)
	}
	for name, v := range tup.Checkpoint.Values {
		if name == checkpoint.NextChannel {
			if err := c.decodeSched(v.Snapshot, &d.next, o.schedules); errors.Is(err, ErrGraphMismatch) {
				return fmt.Errorf("graph: thread %q: checkpoint %q: %w", cfg.ThreadID, id, err)
			} else if err != nil {
				return fmt.Errorf("graph: thread %q: checkpoint %q: schedule: %w: %w", cfg.ThreadID, id, checkpoint.ErrCorrupt, err)
			}
			d.sched = v.Snapshot
			continue
		}
		i := sc.Index(name)
		if i < 0 {
			continue // a field the schema no longer has
		}
		if !hit && (reuse == nil || !c.reuseField(reuse, st, i, tup.Checkpoint.Versions[name])) {
			if err := sc.Decode(st, i, v.Snapshot, v.Deltas, c.ser); err != nil {
				return fmt.Errorf("graph: thread %q: checkpoint %q: %w: %w", cfg.ThreadID, id, checkpoint.ErrCorrupt, err)
			}
		}
		if d.tracks != nil && sc.Kind(i) == state.KindAppend {
			d.tracks[i] = restoreTrack(v, sc.FieldLen(st, i))
		}
	}
	if !hit && !migrated && len(tup.Checkpoint.Values) < len(tup.Checkpoint.Versions) {
		// Values the saver left out (checkpoint.ListOptions.SkipValue):
		// each must be one reuse rebuilds.
		for name, v := range tup.Checkpoint.Versions {
			if _, ok := tup.Checkpoint.Values[name]; ok || checkpoint.IsReserved(name) {
				continue
			}
			i := sc.Index(name)
			if i < 0 {
				continue // a field the schema no longer has
			}
			if reuse == nil || !c.reuseField(reuse, st, i, v) {
				return fmt.Errorf("graph: thread %q: checkpoint %q: field %q: no value read, and none to rebuild it from: %w", cfg.ThreadID, id, name, checkpoint.ErrCorrupt)
			}
		}
	}
	d.versions = nil
	if !o.view {
		d.versions = maps.Clone(tup.Checkpoint.Versions)
		if d.versions == nil {
			d.versions = map[string]string{}
		}
	}
	return nil
}

// liftStart makes the input that tup, an input checkpoint of cfg's thread
// and namespace, holds in checkpoint.StartChannel the pending writes of
// its Start task, where every reader looks for them (and where input
// checkpoints stored before that channel existed keep them). It does so
// once: a tuple decoded again already has them.
func liftStart(tup *checkpoint.Tuple, cfg checkpoint.Config) error {
	v, ok := tup.Checkpoint.Values[checkpoint.StartChannel]
	if !ok {
		return nil
	}
	id := checkpoint.TaskID(tup.Config.CheckpointID, cfg.Namespace, tup.Metadata.Step+1, Start, -1)
	for _, w := range tup.PendingWrites {
		if w.TaskID == id {
			return nil
		}
	}
	ws, err := checkpoint.StartWrites(v.Snapshot, id)
	if err != nil {
		return fmt.Errorf("graph: thread %q: checkpoint %q: the input: %w: %w", cfg.ThreadID, tup.Config.CheckpointID, checkpoint.ErrCorrupt, err)
	}
	// Pending writes are ordered by task id, then index.
	i, _ := slices.BinarySearchFunc(tup.PendingWrites, id, func(w checkpoint.PendingWrite, id string) int { return strings.Compare(w.TaskID, id) })
	tup.PendingWrites = slices.Insert(tup.PendingWrites, i, ws...)
	return nil
}

// pendingTasks returns the tasks of d's next step, in task order, with
// their ids; a task whose successful writes pending holds carries them
// (cached).
func (c *Compiled[S]) pendingTasks(d *decoded[S], pending map[string][]checkpoint.PendingWrite) []*task[S] {
	d.taskBuf, d.tasks = buildTasks(c, &d.next, d.taskBuf, d.tasks)
	tasks := d.tasks
	for _, t := range tasks {
		t.id = checkpoint.TaskID(d.tup.Config.CheckpointID, d.cfg.Namespace, d.step(), t.name, sendIndex(t))
		if upd, ok := c.finishedWrites(pending[t.id]); ok {
			t.update, t.cached = upd, true
			t.fromCache = cachedMarked(pending[t.id])
		}
	}
	return tasks
}

// finishedWrites returns the update of a task whose pending writes ws say
// it finished, and false when it did not (no writes, an error or an
// interrupt) or its writes do not decode (it runs again).
func (c *Compiled[S]) finishedWrites(ws []checkpoint.PendingWrite) (state.Update[S], bool) {
	finished := false
	for _, w := range ws {
		if w.Channel == checkpoint.ErrorChannel || w.Channel == checkpoint.InterruptChannel {
			return state.Update[S]{}, false
		}
		finished = finished || w.Index >= 0 // as checkpoint.FinishedTasks
	}
	if !finished {
		return state.Update[S]{}, false
	}
	upd, err := c.decodeTaskWrites(ws)
	return upd, err == nil
}

// restore makes a decoded checkpoint the run's state and schedule.
func (p *persist[S]) restore(tup *checkpoint.Tuple) error {
	d, err := p.r.c.decode(tup, p.cfg)
	if err != nil {
		return err
	}
	p.adopt(d)
	if p.r.recordsRed {
		if err := p.r.restoreReduced(tup); err != nil {
			return err
		}
	}
	if d.next.start {
		// Stopped between the input checkpoint and the next: the Start task
		// applies the input saved as its writes.
		id := checkpoint.TaskID(d.tup.Config.CheckpointID, d.cfg.Namespace, d.step(), Start, -1)
		upd, err := p.r.c.decodeTaskWrites(groupPending(tup.PendingWrites)[id])
		if err != nil {
			return p.errorf("checkpoint %q: the input: %w: %w", d.tup.Config.CheckpointID, checkpoint.ErrCorrupt, err)
		}
		p.startInput = upd
	}
	return nil
}

// adopt makes d the run's state and schedule, and the checkpoint its
// next save follows.
func (p *persist[S]) adopt(d *decoded[S]) {
	r := p.r
	r.st = d.st
	r.next.copyFrom(&d.next)
	p.sched, p.versions, p.tracks = d.sched, d.versions, d.tracks
	p.id, p.parent = d.tup.Config.CheckpointID, d.tup.Config.CheckpointID
	if r.obs != nil {
		r.obsFrom, r.obsPrevious = p.id, d.tup.Metadata.Extra
	}
	p.markMigrated(d)
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
		if tup.Metadata.Source == checkpoint.SourceUpdate {
			// An update checkpoint is a fork already (UpdateState made it
			// for this branch): the run continues from it, as LangGraph's
			// does, like a resume of a latest checkpoint — its tasks that
			// finished keep their writes, resume values answer its
			// interrupts — and stores no fork of its own.
			r.step = tup.Metadata.Step + 1
			p.pending = groupPending(tup.PendingWrites)
			if err := p.matchResumes(); err != nil {
				return false, err
			}
			r.resuming = true
			return true, nil
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
	resume := len(r.o.resume) > 0 || r.o.resumeByID != nil
	// An input with a goto or Sends is LangGraph's Command(goto=…): it
	// resumes the thread, its writes and gotos applied to the resumed step
	// (takeInput), rather than starting over from Start.
	command := len(input.Goto) > 0 || len(input.Sends) > 0
	if !zero && !resume && !command {
		r.step++ // the input checkpoint takes the next step number
		return false, nil
	}
	p.pending = groupPending(latest.PendingWrites)
	// Resume values with an input: LangGraph's Command(resume=…,
	// update=…, goto=…). The interrupted tasks get their answers, and the
	// input (with those given to earlier resumes of this checkpoint) is
	// applied before they run again, its gotos and Sends adding tasks to
	// the resumed step.
	if err := p.takeInput(input); err != nil {
		return false, err
	}
	if err := p.matchResumes(); err != nil {
		return false, err
	}
	r.resuming = true
	return true, nil
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
		for _, w := range ws {
			switch w.Channel {
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
		if p.replayedFrom == "" {
			t.durable = durableWrites(ws)
		}
		if byID := p.resumeIDs[key]; byID != nil && key == t.id {
			t.resumeByID = byID
		}
		if p.replayedFrom != "" {
			continue // a replay runs its tasks again
		}
		if upd, ok := r.c.finishedWrites(ws); ok {
			t.update, t.cached = upd, true
			t.fromCache = cachedMarked(ws)
		}
	}
	p.pending, p.resumes, p.resumeIDs, p.replayedFrom = nil, nil, nil, ""
}

// decodeTaskWrites decodes the pending writes of a task that finished
// into the update it returned.
func (c *Compiled[S]) decodeTaskWrites(ws []checkpoint.PendingWrite) (state.Update[S], error) {
	var upd state.Update[S]
	sc := c.schema
	for _, w := range ws {
		if w.Index < 0 {
			continue // an error, an interrupt, the answers, a Durable result
		}
		switch w.Channel {
		case checkpoint.DoneChannel, checkpoint.ResumeChannel, cachedChannel:
		case checkpoint.GotoChannel:
			var to []string
			if err := json.Unmarshal(w.Value, &to); err != nil {
				return upd, err
			}
			upd.Goto = append(upd.Goto, to...)
		case checkpoint.SendChannel:
			s, err := c.decodeSendWrite(w.Value)
			if err != nil {
				return upd, err
			}
			upd.Sends = append(upd.Sends, s)
		default:
			wr, err := sc.DecodeWrite(w.Channel, w.Value, c.ser)
			if err != nil {
				return upd, err
			}
			upd.Writes = append(upd.Writes, wr)
		}
	}
	return upd, nil
}
