package graph

import (
	"strconv"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/store"
)

// CompileOption configures a compiled graph.
type CompileOption func(*compileOptions)

type compileOptions struct {
	saver           checkpoint.Saver
	serializer      checkpoint.Serializer
	interruptBefore []string
	interruptAfter  []string
	name            string
	durability      Durability
	leaseTTL        time.Duration
	store           *store.Store
	recursionLimit  int
	observer        Observer
	nodeCache       Cache
	strictAnswers   bool
	// alwaysInBackground makes every DurabilityAsync save go to the
	// background, whatever inBackground would choose; only tests set it
	// (export_test.go), to pin the background path with quick nodes.
	alwaysInBackground bool
	// now, when set, is the clock DurabilityAsync times nodes and saves
	// with (time.Now otherwise); only tests set it (export_test.go).
	now func() time.Time
}

// WithStrictAnswers makes the check of resume values against their
// interrupts' schemas (Interruption.Schema) strict: an object answer may
// not carry a field its type does not have. Without it such fields pass,
// as encoding/json ignores them. Either way a value of the wrong type or
// without a required field is refused (ErrInvalidAnswer), and so is an
// answer to an interrupt that is not pending (ErrNothingToResume).
func WithStrictAnswers() CompileOption {
	return func(o *compileOptions) { o.strictAnswers = true }
}

// WithStore makes s the long-term store of every run: each node finds it
// with store.From(ctx), in this process and in a worker's, without the
// caller putting it in the context. A store the caller's context already
// carries is replaced by s.
func WithStore(s *store.Store) CompileOption {
	return func(o *compileOptions) { o.store = s }
}

// WithDefaultRecursionLimit sets the most supersteps a call may run when
// it does not say (WithRecursionLimit); without it the default is
// DefaultRecursionLimit. A graph that knows how many steps its runs need
// (an agent from its budget) sets it once here, so no caller must.
func WithDefaultRecursionLimit(n int) CompileOption {
	return func(o *compileOptions) { o.recursionLimit = n }
}

// WithCheckpointer saves a checkpoint after every step, so runs can be
// resumed, inspected and replayed. Calls must then name a thread.
func WithCheckpointer(s checkpoint.Saver) CompileOption {
	return func(o *compileOptions) { o.saver = s }
}

// WithSerializer replaces JSON as the encoding of checkpointed values.
func WithSerializer(s checkpoint.Serializer) CompileOption {
	return func(o *compileOptions) { o.serializer = s }
}

// WithInterruptBefore stops every run before the named nodes run; resume
// with a call on the same thread and a zero input.
func WithInterruptBefore(nodes ...string) CompileOption {
	return func(o *compileOptions) { o.interruptBefore = append(o.interruptBefore, nodes...) }
}

// WithInterruptAfter stops every run after the named nodes ran.
func WithInterruptAfter(nodes ...string) CompileOption {
	return func(o *compileOptions) { o.interruptAfter = append(o.interruptAfter, nodes...) }
}

// WithName names the graph (used by Mermaid for subgraph blocks and in
// errors).
func WithName(name string) CompileOption { return func(o *compileOptions) { o.name = name } }

// WithDurability sets when checkpoints are written (default
// DurabilitySync). A subgraph run follows its parent run's durability.
func WithDurability(d Durability) CompileOption { return func(o *compileOptions) { o.durability = d } }

// Durability says when a run's checkpoints are stored.
type Durability uint8

const (
	// DurabilitySync stores each step's checkpoint before the next step
	// starts: a crash loses at most the running step, whose finished
	// tasks' writes are kept too.
	DurabilitySync Durability = iota
	// DurabilityExit stores only the checkpoint the run ends on, with the
	// pending writes of its step's tasks (the writes of those that
	// finished, the interrupts and errors of the others), as LangGraph's
	// durability="exit". A subgraph, or a graph a node invokes, stores
	// nothing when it finishes (its parent's checkpoint holds the result)
	// and its last checkpoint when it stops at an interrupt or an error,
	// so the parent's resume goes on inside it. Fastest, but a crash
	// loses the run.
	DurabilityExit
	// DurabilityAsync stores each step's checkpoint in the background
	// while the next step runs (LangGraph's durability="async"). The run
	// waits for it before it stores anything else (the next checkpoint, a
	// task's writes) and before it returns, so checkpoints stay in order
	// and a failed save still ends the run with its error; but a crash may
	// lose the last step's checkpoint as well as the running step. It pays
	// off when the saver is slow (a remote database) and nodes take time;
	// when either is quick there is nothing to overlap, and the run stores
	// the checkpoint inline, as DurabilitySync does, rather than pay for a
	// goroutine that gains nothing (it decides at each step from the last
	// step's nodes and save).
	DurabilityAsync
)

// String returns LangGraph's name of the mode: "sync", "exit" or "async".
func (d Durability) String() string {
	switch d {
	case DurabilitySync:
		return "sync"
	case DurabilityExit:
		return "exit"
	case DurabilityAsync:
		return "async"
	}
	return "Durability(" + strconv.Itoa(int(d)) + ")"
}
