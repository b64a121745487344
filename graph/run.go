package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// Invoke runs the graph to its end and returns the final state.
//
// With a checkpointer and a thread: a non-zero input is applied on top of
// the thread's state (if any) and the run starts from Start; a zero input
// resumes the thread where it stopped (after an error, an interrupt or a
// crash), re-running only the tasks whose writes were not saved. A run
// stopped by an interrupt returns the state so far (with the writes of the
// interrupted step's tasks that finished, as State shows the thread) and an
// *InterruptError.
func (c *Compiled[S]) Invoke(ctx context.Context, input state.Update[S], opts ...RunOption) (S, error) {
	o := c.options(opts)
	r, err := c.newRun(ctx, o, nil)
	if err != nil {
		var zero S
		return zero, err
	}
	defer r.close()
	err = r.start(input)
	if err == nil {
		err = r.loop()
	}
	err = r.finish(err)
	if r.output != nil {
		return *r.output, err
	}
	return r.st, err
}

// finish waits for a background save (DurabilityAsync), stores what
// DurabilityExit held back, and returns err, or the flush's error.
func (r *run[S]) finish(err error) error {
	if r.cp == nil {
		return err
	}
	ferr := r.cp.flush()
	switch {
	case ferr == nil:
		return err
	case err == nil:
		return ferr
	case errors.As(err, new(*InterruptError)):
		// What the interrupt needs to be resumed was not stored: the
		// save's error is the run's, not a resumable-looking interrupt.
		return ferr
	default:
		return errors.Join(err, ferr)
	}
}

// Stream runs the graph like Invoke and yields its events as they happen,
// in the modes chosen with StreamModes (Values by default). Breaking out of
// the loop cancels the run and waits for its running tasks. An error ends
// the sequence as its last item; an interrupt ends it with an Interrupts
// event and no error.
func (c *Compiled[S]) Stream(ctx context.Context, input state.Update[S], opts ...RunOption) iter.Seq2[Event[S], error] {
	return func(yield func(Event[S], error) bool) {
		o := c.options(opts)
		if o.modes == 0 {
			o.modes = Values
		}
		stopped := false
		out := func(ev Event[S]) bool {
			if stopped {
				return false
			}
			if !yield(ev, nil) {
				stopped = true
			}
			return !stopped
		}
		r, err := c.newRun(ctx, o, out)
		if err != nil {
			yield(Event[S]{}, err)
			return
		}
		defer r.close()
		err = r.start(input)
		if err == nil {
			err = r.loop()
		}
		err = r.finish(err)
		var ie *InterruptError
		if errors.As(err, &ie) {
			if o.modes&Interrupts != 0 {
				out(Event[S]{Mode: Interrupts, Namespace: r.ns, Step: r.step, Interrupts: ie.Interrupts})
			}
			return
		}
		if err != nil && !stopped && !errors.Is(err, errStopped) {
			yield(Event[S]{}, err)
		}
	}
}

var errStopped = errors.New("graph: stream consumer stopped")

// stoppedBy reports whether err is the run's own stop showing through a
// task: the run's context is done (cancelled, past the caller's deadline,
// or a Stream consumer left) and err is that context's error or cause. A
// node's own timeout is not: the run's context is still live then.
func (r *run[S]) stoppedBy(err error) bool {
	if r.ctx.Err() == nil {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errStopped) || errors.Is(err, context.Cause(r.ctx))
}

func (c *Compiled[S]) options(opts []RunOption) runOptions {
	o := runOptions{limit: DefaultRecursionLimit}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// run is one call's execution.
type run[S any] struct {
	c       *Compiled[S]
	ctx     context.Context
	cancel  context.CancelCauseFunc
	o       runOptions
	ns      string
	out     func(Event[S]) bool // nil: nobody streams
	release func()

	st       S
	pre      S   // the state before the step's writes (scratch)
	view     S   // a task's own view for its routers (scratch)
	step     int // the step whose tasks run next
	stepsRun int
	next     schedule[S]
	applier  *state.Applier[S]
	tasks    []*task[S]
	todo     []*task[S] // the step's tasks without a saved result (scratch)
	taskBuf  []task[S]
	scratch  []bool      // per field: overwritten this step
	parent   *parentInfo // what subgraphs started by this run's tasks inherit
	resuming bool        // the first step of a resumed run skips interrupt-before
	output   *S          // the output when it is not st (withFinished)
	// durability is the graph's, or, in a subgraph, the parent run's.
	durability Durability

	cp   *persist[S] // nil without a checkpointer
	bufs *buffers[S]
}

// schedule is what runs next: nodes triggered by edges (unique), Sends,
// and the progress of each join.
type schedule[S any] struct {
	nodes  []*node[S]
	sends  []state.Send[S]
	joins  [][]bool // per join of the graph: which sources have finished
	marked []bool   // by node rank: in nodes already
}

func (s *schedule[S]) empty() bool { return len(s.nodes) == 0 && len(s.sends) == 0 }

// add schedules n once.
func (s *schedule[S]) add(n *node[S]) {
	if !s.marked[n.ord] {
		s.marked[n.ord] = true
		s.nodes = append(s.nodes, n)
	}
}

// reset empties the schedule of nodes and Sends (joins keep their
// progress).
func (s *schedule[S]) reset() {
	for _, n := range s.nodes {
		s.marked[n.ord] = false
	}
	clear(s.nodes)
	s.nodes = s.nodes[:0]
	clear(s.sends)
	s.sends = s.sends[:0]
}

// names returns the scheduled nodes' names, in rank (name) order.
func (s *schedule[S]) names() []string {
	out := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = n.name
	}
	slices.Sort(out)
	return out
}

// addName schedules the named node; End and unknown names are ignored
// (routes are checked before they get here).
func (r *run[S]) addName(name string) {
	if n := r.c.nodes[name]; n != nil {
		r.next.add(n)
	}
}

type task[S any] struct {
	name       string
	node       *node[S]
	push       bool
	index      int // position among the step's Sends
	arg        S
	id         string
	update     state.Update[S]
	err        error
	attempts   int
	cached     bool // restored from saved writes, not run
	resume     []any
	scope      *taskScope
	resumeByID map[string]any // resume values by interrupt id (for subgraphs)
	wire       *wiring[S]
}

// buffers are a run's reusable memory, pooled across runs of a graph.
type buffers[S any] struct {
	applier *state.Applier[S]
	scratch []bool
	marked  []bool
	taskBuf []task[S]
	tasks   []*task[S]
	nodes   []*node[S]
	sends   []state.Send[S]
	joins   [][]bool
}

func (c *Compiled[S]) getBuffers() *buffers[S] {
	if b, ok := c.pool.Get().(*buffers[S]); ok {
		return b
	}
	b := &buffers[S]{applier: c.schema.NewApplier(), scratch: make([]bool, c.schema.Len()), marked: make([]bool, len(c.nodes)), joins: make([][]bool, len(c.joins))}
	for i, j := range c.joins {
		b.joins[i] = make([]bool, len(j.srcs))
	}
	return b
}

// useBuffers gives the run pooled memory.
func (r *run[S]) useBuffers(b *buffers[S]) {
	r.bufs = b
	r.applier, r.scratch, r.taskBuf, r.tasks = b.applier, b.scratch, b.taskBuf, b.tasks[:0]
	r.next.nodes, r.next.sends, r.next.joins, r.next.marked = b.nodes[:0], b.sends[:0], b.joins, b.marked
	for _, j := range b.joins {
		clear(j)
	}
}

// putBuffers returns the run's memory to the pool, dropping what it
// referenced.
func (r *run[S]) putBuffers() {
	b := r.bufs
	if b == nil {
		return
	}
	r.bufs = nil
	clear(r.taskBuf[:cap(r.taskBuf)])
	clear(r.tasks[:cap(r.tasks)])
	clear(r.next.sends[:cap(r.next.sends)])
	clear(r.next.nodes[:cap(r.next.nodes)])
	clear(r.next.marked)
	b.taskBuf, b.tasks, b.nodes, b.sends = r.taskBuf[:0], r.tasks[:0], r.next.nodes[:0], r.next.sends[:0]
	r.c.pool.Put(b)
}

func (c *Compiled[S]) newRun(ctx context.Context, o runOptions, out func(Event[S]) bool) (*run[S], error) {
	r := &run[S]{c: c, o: o, out: out, durability: c.durability}
	r.useBuffers(c.getBuffers())
	parent := parentOf(ctx)
	if parent != nil {
		r.ns = parent.ns
		if parent.saver != nil {
			r.durability = parent.durability // part of the parent's durable run
		}
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	saver := c.saver
	if saver == nil && parent != nil {
		saver = parent.saver
	}
	if saver == nil {
		if o.thread == "" && (o.checkpointID != "" || len(o.resume) > 0 || o.resumeByID != nil) {
			r.close()
			return nil, errors.New("graph: resuming or replaying needs a checkpointer (graph.WithCheckpointer)")
		}
	} else {
		if o.thread == "" {
			r.close()
			return nil, ErrThreadRequired
		}
		if parent == nil {
			release, err := c.threads.acquire(ctx, o.thread, o.wait)
			if err != nil {
				r.close()
				return nil, err
			}
			r.release = release
		}
		r.cp = newPersist(r, saver)
	}
	if r.o.runID == "" {
		r.o.runID = uuid.Must(uuid.NewV7()).String()
	}
	r.parent = r.parentInfo()
	return r, nil
}

func (r *run[S]) close() {
	if r.cp != nil && r.cp.inflight != nil {
		<-r.cp.inflight.done // finish settles it; no save outlives its run
	}
	r.cancel(context.Canceled)
	r.putBuffers()
	if r.release != nil {
		r.release()
	}
}

// start applies the input, or loads the thread to resume or replay it.
func (r *run[S]) start(input state.Update[S]) error {
	if r.cp != nil {
		loaded, err := r.cp.load(input)
		if err != nil {
			return err
		}
		if loaded {
			r.emitValues()
			return nil
		}
	}
	return r.applyInput(input)
}

// applyInput applies the input as the writes of Start, schedules Start's
// successors, and saves the input checkpoint.
func (r *run[S]) applyInput(input state.Update[S]) error {
	clear(r.scratch)
	r.markOverwrites(input.Writes)
	if err := r.applier.Add("input", input.Writes); err != nil {
		return err
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return fmt.Errorf("graph: input: %w", err)
	}
	r.next.reset()
	t := &task[S]{name: Start, update: input, wire: &r.c.start}
	if err := r.route(t, &r.st); err != nil {
		return err
	}
	if r.cp != nil {
		if err := r.cp.save(checkpoint.SourceInput, r.step-1, touched, r.scratch); err != nil {
			return err
		}
	}
	r.emitValues()
	return nil
}

// loop runs supersteps until nothing is scheduled.
func (r *run[S]) loop() error {
	for !r.next.empty() {
		if err := r.ctx.Err(); err != nil {
			return r.stopErr(err)
		}
		if r.stepsRun >= r.o.limit {
			return fmt.Errorf("%w: %d steps ran and more work is pending at step %d (nodes %v); raise it with graph.WithRecursionLimit",
				ErrRecursionLimit, r.o.limit, r.step, r.pendingNames())
		}
		r.prepare()
		if !r.resuming {
			if ints := r.interruptsBefore(); len(ints) > 0 {
				if r.cp != nil {
					if err := r.cp.saveInterrupts(ints); err != nil {
						return err
					}
				}
				return &InterruptError{Interrupts: ints}
			}
		}
		r.resuming = false
		if err := r.runTasks(); err != nil {
			return err
		}
		if err := r.finishStep(); err != nil {
			return err
		}
		if ints := r.interruptsAfter(); len(ints) > 0 {
			return &InterruptError{Interrupts: ints}
		}
	}
	return nil
}

func (r *run[S]) stopErr(err error) error {
	if context.Cause(r.ctx) == errStopped {
		return errStopped
	}
	return fmt.Errorf("graph: run stopped at step %d: %w", r.step, err)
}

func (r *run[S]) pendingNames() []string {
	names := r.next.names()
	for _, s := range r.next.sends {
		names = append(names, s.Node)
	}
	return names
}

// prepare turns the schedule into the step's tasks: triggered nodes by
// name, then Sends in order.
func (r *run[S]) prepare() {
	slices.SortFunc(r.next.nodes, func(a, b *node[S]) int { return a.ord - b.ord })
	n := len(r.next.nodes) + len(r.next.sends)
	if cap(r.taskBuf) < n {
		r.taskBuf = make([]task[S], n)
	}
	r.taskBuf = r.taskBuf[:n]
	r.tasks = r.tasks[:0]
	for i, n := range r.next.nodes {
		t := &r.taskBuf[i]
		*t = task[S]{name: n.name, node: n, wire: &n.wire}
		r.tasks = append(r.tasks, t)
	}
	for i, s := range r.next.sends {
		t := &r.taskBuf[len(r.next.nodes)+i]
		n := r.c.nodes[s.Node]
		*t = task[S]{name: s.Node, node: n, wire: &n.wire, push: true, index: i, arg: s.Arg}
		r.tasks = append(r.tasks, t)
	}
	if r.cp != nil {
		for _, t := range r.tasks {
			t.id = r.cp.taskID(r.step, t)
		}
		r.restoreTasks()
	}
}

// runTasks runs the step's tasks that have no saved result: one inline,
// several concurrently. It returns the first failure in task order.
func (r *run[S]) runTasks() error {
	todo := r.todo[:0]
	for _, t := range r.tasks {
		if t.cached {
			r.emitTaskStart(t)
			r.emitTaskDone(t)
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
		sc := &taskScope{Context: r.ctx, taskInfo: taskInfo{node: t.name, step: r.step, taskID: t.id, ns: r.ns, modes: r.o.modes, parent: r.parent, hitl: newHITL(t.resume, t.resumeByID), checkpointID: r.checkpointID()}}
		if r.out != nil {
			sc.emit = r.emitFrom(sc)
		}
		t.scope = sc
		in := r.st
		if t.push {
			in = t.arg
		}
		r.execute(sc, t, in)
		sc.finish()
		r.afterTask(t)
		r.emitTaskDone(t)
	} else if len(todo) > 1 {
		r.runConcurrently(todo)
	}
	clear(todo)
	r.todo = todo[:0]
	return r.stepError()
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
	for i, t := range todo {
		r.emitTaskStart(t)
		sc := &taskScope{Context: r.ctx, taskInfo: taskInfo{node: t.name, step: r.step, taskID: t.id, ns: r.ns, modes: r.o.modes, hitl: newHITL(t.resume, t.resumeByID), parent: r.parent, checkpointID: r.checkpointID()}}
		if r.out != nil {
			sc.emit = func(ev eventOut) { msgs <- taskMsg{idx: i, ev: ev} }
		}
		t.scope = sc
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			t := todo[i]
			if err := r.ctx.Err(); err != nil {
				t.err = &NodeError{Node: t.name, Step: r.step, TaskID: t.id, Err: err}
			} else {
				in := r.st
				if t.push {
					in = t.arg
				}
				r.execute(t.scope, t, in)
				t.scope.finish()
				r.afterTask(t)
			}
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
		if err := r.applier.Add(t.name, t.update.Writes); err != nil {
			r.applier.Apply(new(S), true) // drop what was queued
			return fmt.Errorf("graph: step %d: %w", r.step, err)
		}
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return fmt.Errorf("graph: step %d: %w", r.step, err)
	}
	if r.cp != nil {
		// Now: touched is the applier's memory, which the routers' views
		// below reuse.
		for _, i := range touched {
			r.cp.dirty[i] = true
		}
	}
	r.next.reset()
	for _, t := range r.tasks {
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
	r.step++
	r.stepsRun++
	r.emitValues()
	return nil
}

// route schedules what follows task t: its node's static edges, routers,
// gotos and Sends, and its part in joins.
func (r *run[S]) route(t *task[S], view *S) error {
	w := t.wire
	for _, d := range w.static {
		r.next.add(d)
	}
	for _, b := range w.branches {
		route, err := callRouter(r.ctx, b.router, *view)
		if err != nil {
			return &RouteError{Node: t.name, Step: r.step, Err: err}
		}
		for _, to := range route.To {
			dst := to
			if b.pathMap != nil {
				d, ok := b.pathMap[to]
				if !ok {
					return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router returned label %q, which is not in its path map (labels: %v)", ErrInvalidRoute, to, sortedKeys(b.pathMap))}
				}
				dst = d
			} else if !slices.Contains(b.targets, to) {
				return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router returned %q, which is not among its declared targets %v", ErrInvalidRoute, to, b.targets)}
			}
			r.addName(dst)
		}
		for _, s := range route.Sends {
			if !slices.Contains(b.targets, s.Node) || s.Node == End {
				return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router sent to %q, which is not among its declared targets %v", ErrInvalidRoute, s.Node, b.targets)}
			}
			r.next.sends = append(r.next.sends, s)
		}
	}
	declared := w.gotos // nil: the node declared no destinations, any node goes
	for _, to := range t.update.Goto {
		if to != End && r.c.nodes[to] == nil {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: goto unknown node %q", ErrInvalidRoute, to)}
		}
		if to != End && len(declared) > 0 && !slices.Contains(declared, to) {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: goto %q, which is not among the node's declared destinations %v (graph.WithDestinations)", ErrInvalidRoute, to, declared)}
		}
		r.addName(to)
	}
	for _, s := range t.update.Sends {
		if r.c.nodes[s.Node] == nil {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: send to unknown node %q", ErrInvalidRoute, s.Node)}
		}
		if len(declared) > 0 && !slices.Contains(declared, s.Node) {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: send to %q, which is not among the node's declared destinations %v (graph.WithDestinations)", ErrInvalidRoute, s.Node, declared)}
		}
		r.next.sends = append(r.next.sends, s)
	}
	for _, j := range w.joins {
		r.next.joins[j.join][j.src] = true
	}
	return nil
}

// finishJoins schedules each join whose sources have all finished.
func (r *run[S]) finishJoins() {
	for ji, seen := range r.next.joins {
		all := true
		for _, s := range seen {
			all = all && s
		}
		if all {
			r.addName(r.c.joins[ji].dst)
			clear(seen)
		}
	}
}

func (r *run[S]) checkpointID() string {
	if r.cp == nil {
		return ""
	}
	return r.cp.id
}

// markOverwrites flags the fields the writes overwrite, so their new value
// is saved whole rather than as a delta.
func (r *run[S]) markOverwrites(ws []state.Write[S]) {
	for _, w := range ws {
		if w.IsOverwrite() {
			if i := r.c.schema.IndexOf(w); i >= 0 {
				r.scratch[i] = true
			}
		}
	}
}

// callRouter runs a router, turning a panic into an error.
func callRouter[S any](ctx context.Context, router Router[S], s S) (route Route[S], err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("router panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return router(ctx, s)
}
