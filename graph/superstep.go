package graph

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// task is one run of a node in a step: triggered by an edge, or by a
// Send (push) with its own input.
type task[S any] struct {
	name       string
	node       *node[S]
	push       bool
	index      int // position among the step's Sends
	arg        S
	item       any // a Send's argument of its own type (SendArg)
	id         string
	update     state.Update[S]
	err        error
	attempts   int
	cached     bool // restored from saved writes, not run
	fromCache  bool // its update came from the node cache (WithCache), not from running it
	resume     []any
	scope      *taskScope
	resumeByID map[string]any            // resume values by interrupt id (for subgraphs)
	durable    []checkpoint.PendingWrite // Durable results saved by earlier runs
	wire       *wiring[S]
	obsEnd     func(TaskEnd) // ends the task's observation (nil: not observed)
	took       time.Duration // how long its node ran (timed only under DurabilityAsync)
}

// buildTasks turns a schedule into a step's tasks, in buf's and tasks'
// memory: triggered nodes by name, then Sends in order. Deferred nodes
// (WithDefer) are left waiting, in the schedule, while anything else is
// pending.
func buildTasks[S any](c *Compiled[S], next *schedule[S], buf []task[S], tasks []*task[S]) ([]task[S], []*task[S]) {
	sortNodes(next.nodes)
	first := 0
	if next.start {
		first = 1
	}
	pulled := len(next.nodes)
	next.held = c.hasDeferred && next.holdsDeferred()
	if next.held {
		for _, n := range next.nodes {
			if n.deferred {
				pulled--
			}
		}
	}
	n := first + pulled + len(next.sends)
	if cap(buf) < n {
		buf = make([]task[S], n)
	}
	buf = buf[:n]
	tasks = tasks[:0]
	if next.start {
		buf[0] = task[S]{name: Start, wire: &c.start}
		tasks = append(tasks, &buf[0])
	}
	i := first
	for _, n := range next.nodes {
		if next.held && n.deferred {
			continue
		}
		t := &buf[i]
		i++
		*t = task[S]{name: n.name, node: n, wire: &n.wire}
		tasks = append(tasks, t)
	}
	for k, s := range next.sends {
		t := &buf[first+pulled+k]
		n := c.nodes[s.Node]
		*t = task[S]{name: s.Node, node: n, wire: &n.wire, push: true, index: k, arg: s.Arg, item: s.Item}
		tasks = append(tasks, t)
	}
	return buf, tasks
}

// sortNodes puts nodes in their order of declaration. The edges of a
// fan-out usually schedule them in that order already: checking costs a
// comparison a node, sorting fifty a few thousand instructions.
func sortNodes[S any](nodes []*node[S]) {
	for i := 1; i < len(nodes); i++ {
		if nodes[i].ord < nodes[i-1].ord {
			slices.SortFunc(nodes, func(a, b *node[S]) int { return a.ord - b.ord })
			return
		}
	}
}

// prepare turns the schedule into the step's tasks: triggered nodes by
// name, then Sends in order.
func (r *run[S]) prepare() {
	r.taskBuf, r.tasks = buildTasks(r.c, &r.next, r.taskBuf, r.tasks)
	if r.cp != nil {
		for _, t := range r.tasks {
			t.id = r.cp.taskID(r.step, t)
		}
		r.restoreTasks()
		for _, t := range r.tasks {
			if t.name == Start {
				t.update, t.cached = r.cp.startInput, true
			}
		}
	}
}

// runTasks runs the step's tasks that have no saved result: one inline,
// several concurrently. It returns the first failure in task order.
func (r *run[S]) runTasks() error {
	todo := r.todo[:0]
	for _, t := range r.tasks {
		if t.cached {
			if t.name != Start { // the input, not a node's run
				r.emitTaskStart(t)
				r.emitTaskDone(t)
			}
			continue
		}
		todo = append(todo, t)
	}
	if len(todo) == 1 {
		t := todo[0]
		r.emitTaskStart(t)
		// A scope of its own, never reused: it is the node's context, which
		// may outlive the node (an HTTP transport cancels a request's
		// context from its own goroutine after the response).
		sc := r.newScope(t)
		if r.out != nil {
			sc.emit = r.emitFrom(sc)
		}
		t.scope = sc
		in := r.st
		if t.push {
			in = t.arg
		}
		if r.obs != nil {
			r.observeTask(sc, t)
		}
		r.execute(sc, t, in)
		sc.finish()
		r.afterTask(t)
		r.endTask(t)
		r.emitTaskDone(t)
	} else if len(todo) > 1 && r.out == nil {
		r.runQuiet(todo)
	} else if len(todo) > 1 {
		r.runConcurrently(todo)
	}
	if r.timeTasks && len(todo) > 0 {
		r.tasksTook, r.tasksTimed = 0, true
		for _, t := range todo {
			r.tasksTook = max(r.tasksTook, t.took)
		}
	}
	clear(todo)
	r.todo = todo[:0]
	return r.stepError()
}

// newScope makes the context scope task t runs in.
func (r *run[S]) newScope(t *task[S]) *taskScope {
	sc := new(taskScope)
	r.initScope(sc, t)
	return sc
}

// newScopes makes the scopes of a step's tasks, in one allocation: each
// is still its task's own, never reused (a node's context may outlive
// the node).
func (r *run[S]) newScopes(todo []*task[S]) {
	scopes := make([]taskScope, len(todo))
	for i, t := range todo {
		r.initScope(&scopes[i], t)
		t.scope = &scopes[i]
	}
}

// initScope fills in sc, a zero scope, for task t.
func (r *run[S]) initScope(sc *taskScope, t *task[S]) {
	*sc = taskScope{Context: r.ctx, taskInfo: taskInfo{node: t.name, step: r.step, taskID: t.id, sendIdx: int32(sendIndex(t)), modes: r.o.modes, parent: r.parent, hitl: newHITL(t.resume, t.resumeByID), checkpointID: r.checkpointID()}}
	if len(t.durable) > 0 || t.item != nil {
		e := &taskExt{item: t.item}
		if len(t.durable) > 0 {
			e.durable = &durableState{restored: t.durable}
		}
		sc.ext.Store(e)
	}
}

type taskMsg struct {
	idx  int
	done bool
	ev   eventOut
}

// runConcurrently runs several tasks at once. It starts one worker per
// processor (at most MaxConcurrency); workers take tasks in order. While
// tasks remain unstarted and none finished for stallInterval — they block,
// on I/O or a model — it doubles the workers, up to one per task, so
// blocking tasks all run concurrently while quick ones do not pay for a
// goroutine each.
func (r *run[S]) runConcurrently(todo []*task[S]) {
	n := len(todo)
	msgs := make(chan taskMsg, n)
	limit := n
	if r.o.maxConcurrency > 0 {
		limit = min(n, r.o.maxConcurrency)
	}
	r.newScopes(todo)
	for i, t := range todo {
		r.emitTaskStart(t)
		if r.out != nil {
			t.scope.emit = func(ev eventOut) { msgs <- taskMsg{idx: i, ev: ev} }
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			r.runScoped(todo[i])
			msgs <- taskMsg{idx: i, done: true}
		}
	}
	workers := min(limit, runtime.GOMAXPROCS(0))
	for range workers {
		wg.Go(work)
	}
	stall := time.NewTimer(stallInterval)
	defer stall.Stop()
	progressed := false
	for left := n; left > 0; {
		select {
		case m := <-msgs:
			t := todo[m.idx]
			if !m.done {
				r.forward(t, m.ev)
				continue
			}
			left--
			progressed = true
			r.emitTaskDone(t)
		case <-stall.C:
			if !progressed && workers < limit && int(next.Load()) < n {
				more := min(workers, limit-workers)
				for range more {
					wg.Go(work)
				}
				workers += more
			}
			progressed = false
			stall.Reset(stallInterval)
		}
	}
	wg.Wait()
}

// runScoped runs task t, whose scope is made, on a worker of its step.
func (r *run[S]) runScoped(t *task[S]) {
	if err := r.ctx.Err(); err != nil {
		t.err = &NodeError{Node: t.name, Step: r.step, TaskID: t.id, Err: err}
	} else {
		in := r.st
		if t.push {
			in = t.arg
		}
		if r.obs != nil {
			r.observeTask(t.scope, t)
		}
		r.execute(t.scope, t, in)
		t.scope.finish()
		r.afterTask(t)
	}
	r.endTask(t)
}

// stallInterval is how long the tasks of a step may make no progress
// before more workers start.
const stallInterval = 50 * time.Microsecond

// afterTask saves a finished task's writes (or its error or interrupts)
// at once, so a crash later in the step does not lose them. It runs on the
// task's goroutine.
func (r *run[S]) afterTask(t *task[S]) {
	if r.cp == nil {
		if t.scope != nil && len(t.scope.interrupts()) > 0 && t.err != nil {
			t.err = &NodeError{Node: t.name, Step: r.step, Err: errors.New("Interrupt needs a checkpointer (graph.WithCheckpointer)")}
		}
		return
	}
	err := r.cp.saveTask(t)
	switch {
	case err == nil:
	case t.err == nil, errors.Is(t.err, errInterrupt):
		// An interrupt that was not stored cannot be resumed: the task
		// failed.
		t.err = err
	default:
		t.err = errors.Join(t.err, err)
	}
}

// stepError returns the step's first failure in task order, or nil. A
// failed step is not applied; the thread stays resumable from the
// checkpoint before it, with the finished tasks' writes saved.
func (r *run[S]) stepError() error {
	var ints []Interruption
	for _, t := range r.tasks {
		if t.err == nil {
			continue
		}
		if errors.Is(t.err, errInterrupt) {
			ints = append(ints, t.scope.interrupts()...)
			continue
		}
		if r.ctx.Err() != nil {
			return r.stopErr(r.ctx.Err())
		}
		return t.err
	}
	if len(ints) > 0 {
		r.withFinished()
		return &InterruptError{Interrupts: ints}
	}
	return nil
}

// withFinished sets the output of a run stopped by interrupts in a step:
// the state with the writes of the step's tasks that finished, as State
// shows the thread (and as LangGraph returns it). The run's own state, from
// which a DurabilityExit run's final checkpoint is stored, stays without
// them: they are saved as pending writes and applied on resume.
func (r *run[S]) withFinished() {
	out := r.st
	n := 0
	for _, t := range r.tasks {
		if t.err == nil {
			if err := r.applier.Add(t.name, t.update.Writes); err != nil {
				r.applier.Apply(new(S), true) // drop what was queued
				return
			}
			n++
		}
	}
	if n == 0 {
		return
	}
	if _, err := r.applier.Apply(&out, true); err != nil {
		return // a conflict the resumed step will report
	}
	r.output = &out
}

// finishStep applies the step's writes in task order, follows the edges,
// saves the checkpoint and emits the new state.
func (r *run[S]) finishStep() error {
	needView := len(r.tasks) > 1
	if needView {
		r.pre = r.st
	}
	clear(r.scratch)
	for _, t := range r.tasks {
		r.markOverwrites(t.update.Writes)
		if r.recordsRed {
			r.recordReduced(t.update.Writes)
		}
		if err := r.applier.Add(t.name, t.update.Writes); err != nil {
			r.applier.Apply(new(S), true) // drop what was queued
			return fmt.Errorf("graph: step %d: %w", r.step, err)
		}
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return fmt.Errorf("graph: step %d: %w", r.step, err)
	}
	r.markRewrites()
	if r.cp != nil {
		// Now: touched is the applier's memory, which the routers' views
		// below reuse.
		r.cp.markDirty(touched)
	}
	if r.next.held {
		r.next.resetKeepDeferred()
	} else {
		r.next.reset()
	}
	r.trig.reset()
	for i, t := range r.tasks {
		r.trig.cur = i
		view := &r.st
		if needView && len(t.wire.branches) > 0 {
			r.view = r.pre
			if err := r.applier.Add(t.name, t.update.Writes); err != nil {
				return err
			}
			if _, err := r.applier.Apply(&r.view, true); err != nil {
				return err
			}
			view = &r.view
		}
		if err := r.route(t, view); err != nil {
			return err
		}
	}
	r.finishJoins()
	if r.cp != nil {
		if err := r.cp.save(checkpoint.SourceLoop, r.step, nil, r.scratch); err != nil {
			return err
		}
	}
	if len(r.tasks) != 1 || r.tasks[0].name != Start {
		r.stepsRun++ // the input's step is not counted
	}
	r.step++
	r.emitValues()
	return nil
}
