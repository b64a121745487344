package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store"
)

// Invoke runs the graph to its end and returns the final state.
//
// With a checkpointer and a thread: a non-zero input is applied on top of
// the thread's state (if any) and the run starts from Start; a zero input
// resumes the thread where it stopped (after an error, an interrupt or a
// crash), re-running only the tasks whose writes were not saved. An input
// with a Goto or Sends is LangGraph's Command(goto=…, update=…) as input:
// on a thread with checkpoints it resumes too (past a static breakpoint),
// its writes applied first and its gotos and Sends run beside the resumed
// step's tasks. A run
// stopped by an interrupt returns the state so far (with the writes of the
// interrupted step's tasks that finished, as State shows the thread) and an
// *InterruptError.
func (c *Compiled[S]) Invoke(ctx context.Context, input state.Update[S], opts ...RunOption) (S, error) {
	ctx, o, caller := c.nest(ctx, c.options(opts))
	var out func(Event[S]) bool
	if fwd := forwarding(caller); fwd != 0 {
		o.modes, o.subgraphs = fwd, true
		out = func(ev Event[S]) bool { forwardTo(caller, ev); return true }
	}
	r, err := c.newRun(ctx, o, out)
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
	r.endObserved(err)
	report(caller, err)
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
	ferr := r.cp.flush(err)
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
		ctx, o, caller := c.nest(ctx, c.options(opts))
		if o.modes == 0 {
			o.modes = Values
		}
		// A nested call's events also go to the parent's stream (see
		// forwarding), while the run lasts: the modes of both are streamed,
		// and each gets those it asked for.
		own, ownSubgraphs := o.modes, o.subgraphs
		fwd := forwarding(caller)
		if fwd != 0 {
			o.modes, o.subgraphs = o.modes|fwd, true
		}
		var ns string // the run's namespace, once it started
		stopped := false
		out := func(ev Event[S]) bool {
			if fwd != 0 && ev.Mode&fwd != 0 {
				forwardTo(caller, ev)
			}
			if stopped || ev.Mode&own == 0 || !ownSubgraphs && ev.Namespace != ns {
				return !stopped
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
		ns = r.ns
		err = r.start(input)
		if err == nil {
			err = r.loop()
		}
		err = r.finish(err)
		r.endObserved(err)
		report(caller, err)
		fwd, o.modes = 0, own // the parent's stream ends with the interrupts of its own
		var ie *InterruptError
		if errors.As(err, &ie) {
			switch {
			case o.modes&Interrupts != 0:
				out(Event[S]{Mode: Interrupts, Namespace: r.ns, Step: r.step, Interrupts: ie.Interrupts})
			case o.modes&Updates != 0:
				out(Event[S]{Mode: Updates, Namespace: r.ns, Step: r.step, Node: InterruptNode, Interrupts: ie.Interrupts})
			case o.modes&Values != 0:
				st := r.st
				if r.output != nil {
					st = *r.output
				}
				out(Event[S]{Mode: Values, Namespace: r.ns, Step: r.step - 1, State: st, Interrupts: ie.Interrupts})
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
	o := runOptions{limit: c.recursionLimit}
	runOptionsOf(&o, opts)
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
	// timeTasks says the run times its nodes (DurabilityAsync with a
	// checkpointer: see persist.inBackground); tasksTook is the longest
	// a node of the last step that ran nodes ran, once tasksTimed.
	timeTasks  bool
	tasksTimed bool
	tasksTook  time.Duration

	cp   *persist[S] // nil without a checkpointer
	trig triggerLog  // what scheduled the next step's tasks (triggers.go)
	bufs *buffers[S]
	// lease keeps the thread's lease (nil without a Leaser); a subgraph's
	// run shares its parent's, which only the parent ends (ownLease).
	lease    *leaseKeeper
	ownLease bool
	// reduced, in a subgraph's run (asNode), records in order the writes
	// its steps applied to merge and custom fields: they are its parent's
	// update for those fields (see reducedWrites).
	reduced    []state.Write[S]
	recordsRed bool

	// obs watches the run (nil: nothing is observed; see observe.go).
	obs         Observer
	obsEnd      func(RunEnd)
	obsFrom     string         // RunEnd.From
	obsPrevious map[string]any // RunEnd.Previous
}

func (c *Compiled[S]) newRun(ctx context.Context, o runOptions, out func(Event[S]) bool) (*run[S], error) {
	r := &run[S]{c: c, o: o, out: out, durability: c.durability}
	if o.hasDurability {
		r.durability = o.durability
	}
	r.useBuffers(c.getBuffers())
	parent := parentOf(ctx)
	if parent != nil {
		r.ns = parent.ns
		if parent.saver != nil {
			r.durability = parent.durability // part of the parent's durable run
		}
	}
	if c.store != nil {
		ctx = store.With(ctx, c.store)
	}
	if r.o.runID == "" {
		r.o.runID = uuid.Must(uuid.NewV7()).String()
	}
	r.obs = c.observer
	if r.obs == nil && parent != nil {
		r.obs = parent.observer
	}
	if r.obs != nil {
		ctx = r.startObserved(ctx)
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	saver := c.saver
	if saver == nil && parent != nil {
		saver = parent.saver
	}
	if saver == nil {
		if o.checkpointID != "" || len(o.resume) > 0 || o.resumeByID != nil {
			return r.abandon(errors.New("graph: resuming or replaying needs a checkpointer (graph.WithCheckpointer)"))
		}
	} else {
		if o.thread == "" {
			return r.abandon(ErrThreadRequired)
		}
		if parent == nil {
			if err := r.takeThread(saver); err != nil {
				return r.abandon(err)
			}
		} else {
			r.lease = parent.lease // the parent run holds the thread
		}
		r.cp = newPersist(r, saver)
		r.timeTasks = r.durability == DurabilityAsync
		r.trig.on = true
	}
	r.parent = r.parentInfo()
	return r, nil
}

// abandon closes a run that could not start and returns its error.
func (r *run[S]) abandon(err error) (*run[S], error) {
	r.close()
	r.endObserved(err)
	return nil, err
}

func (r *run[S]) close() {
	if r.cp != nil && r.cp.inflight != nil {
		<-r.cp.inflight.done // finish settles it; no save outlives its run
	}
	r.cancel(context.Canceled)
	r.putBuffers()
	if r.ownLease {
		r.lease.end(r.ctx)
	}
	if r.release != nil {
		r.release()
	}
}

// takeThread makes the run the thread's one writer before it stores
// anything: in this process, then in the saver when it is a Leaser, with a
// heartbeat keeping the lease until close.
func (r *run[S]) takeThread(saver checkpoint.Saver) error {
	holder := holderName(r.o.runID)
	release, err := r.c.threads.acquire(r.ctx, r.o.thread, holder, r.o.wait)
	if err != nil {
		return err
	}
	r.release = release
	ls, err := r.c.takeLease(r.ctx, saver, r.o.thread, holder, r.o.wait)
	if err != nil {
		return err
	}
	if ls != nil {
		r.lease, r.ownLease = keepLease(ls, r.c.leaseTTL, r.cancel), true
		// Every write of the run, its subgraphs' too, is fenced by the
		// lease: one that lost the thread to another run stores nothing,
		// even before its heartbeat finds out.
		r.ctx = checkpoint.WithFence(r.ctx, ls)
	}
	return nil
}

// start applies the input, or loads the thread to resume or replay it.
func (r *run[S]) start(input state.Update[S]) error {
	if r.cp != nil {
		if r.o.nested {
			resumes, err := r.resumesNested()
			if err != nil {
				return err
			}
			if resumes {
				input = state.Update[S]{}
			}
		}
		loaded, err := r.cp.load(input)
		if err != nil {
			return err
		}
		if loaded {
			if !r.cp.update.IsZero() {
				if err := r.applyResumeUpdate(); err != nil {
					return err
				}
			}
			r.emitValues()
			return nil
		}
	}
	return r.applyInput(input)
}

// applyResumeUpdate applies the input given with resume values to the
// state the resumed step starts from: its tasks read it, and the step's
// checkpoint stores it.
func (r *run[S]) applyResumeUpdate() error {
	upd := r.cp.update
	r.cp.update = state.Update[S]{}
	if err := r.applier.Add("input", upd.Writes); err != nil {
		return err
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return fmt.Errorf("graph: input given with the resume values: %w", err)
	}
	r.cp.markDirty(touched)
	for _, w := range upd.Writes {
		if i := r.c.schema.IndexOf(w); i >= 0 && w.IsOverwrite() {
			r.cp.tracks[i].lastLen = math.MaxInt // stored whole: the next blob is a snapshot
		}
	}
	for _, i := range r.applier.Rewrites() {
		r.cp.tracks[i].lastLen = math.MaxInt
	}
	// The input's gotos and Sends join the resumed step's tasks, as a
	// Command's goto does in LangGraph.
	for _, to := range upd.Goto {
		switch n := r.c.nodes[to]; {
		case to == End:
		case n == nil:
			return fmt.Errorf("graph: input given to resume: %w: goto unknown node %q", ErrInvalidRoute, to)
		default:
			r.next.add(n)
		}
	}
	for _, s := range upd.Sends {
		if r.c.nodes[s.Node] == nil {
			return fmt.Errorf("graph: input given to resume: %w: send to unknown node %q", ErrInvalidRoute, s.Node)
		}
		r.next.sends = append(r.next.sends, s)
	}
	return nil
}

// applyInput starts a run with input as LangGraph does: with a
// checkpointer it saves the input checkpoint (step r.step-1: the state
// before the input, Start next, the input as the Start task's writes),
// then, like every step, applies the Start task's writes, schedules Start's
// successors and saves the loop checkpoint (step r.step). The first node
// runs in the step after.
func (r *run[S]) applyInput(input state.Update[S]) error {
	if r.cp != nil {
		if err := r.cp.saveInput(input); err != nil {
			return err
		}
		if r.obs != nil && r.obsFrom == "" {
			r.obsFrom = r.cp.id
		}
	}
	return r.startStep(input)
}

// startStep applies the input as the writes of the Start task, schedules
// Start's successors, and saves the loop checkpoint of step r.step.
func (r *run[S]) startStep(input state.Update[S]) error {
	clear(r.scratch)
	r.markOverwrites(input.Writes)
	if err := r.applier.Add("input", input.Writes); err != nil {
		return err
	}
	touched, err := r.applier.Apply(&r.st, false)
	if err != nil {
		return fmt.Errorf("graph: input: %w", err)
	}
	r.markRewrites()
	r.next.reset()
	r.trig.reset()
	t := &task[S]{name: Start, update: input, wire: &r.c.start}
	if err := r.route(t, &r.st); err != nil {
		return err
	}
	r.tasks = r.tasks[:0]
	if r.cp != nil {
		if err := r.cp.save(checkpoint.SourceLoop, r.step, touched, r.scratch); err != nil {
			return err
		}
	}
	r.step++
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
		if r.obs != nil {
			if err := r.observedStep(); err != nil {
				return err
			}
		} else {
			if err := r.runTasks(); err != nil {
				return err
			}
			if err := r.finishStep(); err != nil {
				return err
			}
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
	if lerr := r.lease.err(); lerr != nil {
		return lerr
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

func (r *run[S]) checkpointID() string {
	if r.cp == nil {
		return ""
	}
	return r.cp.id
}

// markRewrites flags the fields whose reducer, in the Apply just made,
// replaced or removed elements (state.AppendReduce), so their new value is
// saved whole rather than as a delta.
func (r *run[S]) markRewrites() {
	for _, i := range r.applier.Rewrites() {
		r.scratch[i] = true
	}
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
