package graph

import (
	"fmt"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// A run with a checkpointer keeps its thread in the checkpointer through a
// persist: load.go reads the thread (a new run, a resume, a replay),
// resume.go matches resume values with pending interrupts, save.go stores
// checkpoints and task writes under the graph's Durability, delta.go stores
// append fields as deltas, and schedule.go encodes what runs next. The bytes
// stored are checkpoint's format (checkpoint/format.go).

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
	// update is the input given with resume values: applied to the state
	// before the resumed step runs.
	update state.Update[S]
	// startInput is the input a loaded input checkpoint holds as the
	// writes of its Start task.
	startInput state.Update[S]
	// startData is the input the next input checkpoint stores
	// (checkpoint.StartChannel), until a later checkpoint applied it.
	startData []byte
	// replayedFrom is the checkpoint a replay with resume values forked:
	// pending, resumes and resumeIDs are keyed by the tasks' ids there.
	replayedFrom string
	parents      map[string]string
	dirty        []bool // fields changed since the last Put (DurabilityExit)
	nodes        []string
	trig         []any // the triggers of the next checkpoint (triggers.go)
	schedBuf     []byte
	names        []string
	key          string // the state cache's key of the thread and namespace
	// parent is the newest stored checkpoint of this run: the parent of the
	// next one. Under DurabilityExit, id may name a checkpoint not stored
	// yet (unsaved), whose tasks' writes wait in held.
	parent  string
	unsaved bool
	// dry: put computes each checkpoint but stores nothing (the first
	// pass of BulkUpdateState).
	dry           bool
	unsavedSource checkpoint.Source
	unsavedStep   int
	held          []heldWrites
	heldMu        sync.Mutex // tasks of a step finish concurrently
	// inflight is the checkpoint being stored in the background
	// (DurabilityAsync). It is set and cleared on the run's goroutine
	// between steps; tasks only wait for it.
	inflight *inflightPut[S]
	// lastSave is how long the last Put took, once saveTimed (timed
	// under DurabilityAsync; see inBackground).
	lastSave  time.Duration
	saveTimed bool
}

// newPersist connects run r to saver, on r's thread and namespace.
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

// taskID derives a task's id from the checkpoint that holds it, the
// namespace, the step, the node and, for a Send, its position.
func (p *persist[S]) taskID(step int, t *task[S]) string {
	return p.taskIDAt(p.id, step, t)
}

// taskIDAt is the id task t of step would have in checkpoint cp.
func (p *persist[S]) taskIDAt(cp string, step int, t *task[S]) string {
	return checkpoint.TaskID(cp, p.cfg.Namespace, step, t.name, sendIndex(t))
}
