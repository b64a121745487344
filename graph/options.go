package graph

import (
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
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
	// DurabilityExit stores only the input's checkpoint and the one the
	// run ends on (with the writes of finished tasks): fastest, but a
	// crash loses the run.
	DurabilityExit
	// DurabilityAsync stores each step's checkpoint in the background
	// while the next step runs (LangGraph's durability="async"). The run
	// waits for it before it stores anything else (the next checkpoint, a
	// task's writes) and before it returns, so checkpoints stay in order
	// and a failed save still ends the run with its error; but a crash may
	// lose the last step's checkpoint as well as the running step. It pays
	// off when the saver is slow (a remote database) and nodes take time.
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

// RunOption configures one call of Invoke, Stream, State, History or
// UpdateState.
type RunOption func(*runOptions)

type runOptions struct {
	thread          string
	checkpointID    string
	limit           int
	maxConcurrency  int
	modes           Mode
	runID           string
	metadata        map[string]any
	resume          []any
	resumeByID      map[string]any
	wait            bool
	subgraphs       bool
	interruptBefore []string
	interruptAfter  []string
	filter          map[string]any
	before          string
	historyLimit    int
}

// DefaultRecursionLimit is the number of supersteps one call may run
// unless WithRecursionLimit says otherwise (as in LangGraph.js).
const DefaultRecursionLimit = 25

// WithThread names the thread a call runs on, reads or updates.
func WithThread(id string) RunOption { return func(o *runOptions) { o.thread = id } }

// WithCheckpoint pins a call to one checkpoint of the thread: State reads
// it, and Invoke or Stream replays from it on a new branch (a fork),
// leaving the old history untouched.
func WithCheckpoint(id string) RunOption { return func(o *runOptions) { o.checkpointID = id } }

// WithRecursionLimit sets the most supersteps the call may run
// (default DefaultRecursionLimit).
func WithRecursionLimit(n int) RunOption { return func(o *runOptions) { o.limit = n } }

// WithMaxConcurrency bounds how many tasks of a step run at once (default:
// all of them).
func WithMaxConcurrency(n int) RunOption { return func(o *runOptions) { o.maxConcurrency = n } }

// StreamModes selects what Stream yields (default: Values).
func StreamModes(modes ...Mode) RunOption {
	return func(o *runOptions) {
		for _, m := range modes {
			o.modes |= m
		}
	}
}

// WithRunID sets the run id recorded in checkpoint metadata (default: a
// new UUIDv7).
func WithRunID(id string) RunOption { return func(o *runOptions) { o.runID = id } }

// WithMetadata adds user metadata to every checkpoint the call writes; List
// and History filters can match it.
func WithMetadata(md map[string]any) RunOption { return func(o *runOptions) { o.metadata = md } }

// WaitForThread makes a call wait while another run of this process holds
// the thread, instead of failing with checkpoint.ErrConflict.
func WaitForThread() RunOption { return func(o *runOptions) { o.wait = true } }

// WithSubgraphs makes Stream also yield the events of subgraphs, tagged
// with their namespace.
func WithSubgraphs() RunOption { return func(o *runOptions) { o.subgraphs = true } }

// InterruptBefore adds nodes to interrupt before, for this call only.
func InterruptBefore(nodes ...string) RunOption {
	return func(o *runOptions) { o.interruptBefore = append(o.interruptBefore, nodes...) }
}

// InterruptAfter adds nodes to interrupt after, for this call only.
func InterruptAfter(nodes ...string) RunOption {
	return func(o *runOptions) { o.interruptAfter = append(o.interruptAfter, nodes...) }
}

// Resume answers the pending interrupt of the thread: its Interrupt call
// returns v when the node runs again. When several interrupts are pending,
// use ResumeByID.
func Resume(v any) RunOption { return func(o *runOptions) { o.resume = append(o.resume, v) } }

// ResumeByID answers pending interrupts by their ids (see Interruption.ID).
func ResumeByID(values map[string]any) RunOption {
	return func(o *runOptions) { o.resumeByID = values }
}
