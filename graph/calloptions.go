package graph

// Each call takes its own option type, so an option compiles only where
// it means something: RunOption for Invoke and Stream, StateOption for
// State and MermaidPath, HistoryOption for History, UpdateOption for
// UpdateState. The options several calls share are shared on purpose, by
// types that are options of each of them: ThreadOption (every call),
// CheckpointOption (all but History) and WriteOption (the calls that write
// checkpoints: Invoke, Stream, UpdateState).

// RunOption configures one call of Invoke or Stream.
type RunOption interface{ runOption() }

// StateOption configures a call of State or MermaidPath: the thread and
// the checkpoint they read.
type StateOption interface{ stateOption() }

// HistoryOption configures a call of History.
type HistoryOption interface{ historyOption() }

// UpdateOption configures a call of UpdateState.
type UpdateOption interface{ updateOption() }

// ThreadOption names the thread of a call; it is an option of every call
// (a RunOption, StateOption, HistoryOption and UpdateOption). Make one with
// WithThread.
type ThreadOption struct{ id string }

func (ThreadOption) runOption()     {}
func (ThreadOption) stateOption()   {}
func (ThreadOption) historyOption() {}
func (ThreadOption) updateOption()  {}

// CheckpointOption pins a call to one checkpoint of its thread; it is an
// option of Invoke, Stream, State, MermaidPath and UpdateState (a
// RunOption, StateOption and UpdateOption), not of History, which lists
// them all. Make one with WithCheckpoint.
type CheckpointOption struct{ id string }

func (CheckpointOption) runOption()    {}
func (CheckpointOption) stateOption()  {}
func (CheckpointOption) updateOption() {}

// WriteOption shapes what a call that writes checkpoints records, or how it
// takes its thread; it is an option of Invoke, Stream and UpdateState (a
// RunOption and an UpdateOption). WithRunID, WithMetadata and
// WaitForThread make them.
type WriteOption func(*runOptions)

func (WriteOption) runOption()    {}
func (WriteOption) updateOption() {}

// runFunc is an option of Invoke and Stream only.
type runFunc func(*runOptions)

func (runFunc) runOption() {}

// historyFunc is an option of History only.
type historyFunc func(*historyOptions)

func (historyFunc) historyOption() {}

// The options are applied by type switches, not by methods of the option
// interfaces: an interface method call would make every option escape to
// the heap, one allocation per option and call.

// runOptionsOf applies the options of Invoke and Stream (and, as
// UpdateOptions, of UpdateState).
func runOptionsOf[O any](o *runOptions, opts []O) {
	for _, opt := range opts {
		switch v := any(opt).(type) {
		case runFunc:
			v(o)
		case WriteOption:
			v(o)
		case ThreadOption:
			o.thread = v.id
		case CheckpointOption:
			o.checkpointID = v.id
		case SubgraphsOption:
			o.subgraphs = true
		}
	}
}

// readOptionsOf applies the options of State and MermaidPath.
func readOptionsOf(opts []StateOption) readOptions {
	var o readOptions
	for _, opt := range opts {
		switch v := opt.(type) {
		case ThreadOption:
			o.thread = v.id
		case CheckpointOption:
			o.checkpointID = v.id
		case SubgraphsOption:
			o.subgraphs = true
		case NamespaceOption:
			o.ns = v.ns
		}
	}
	return o
}

// historyOptionsOf applies the options of History.
func historyOptionsOf(opts []HistoryOption) historyOptions {
	var o historyOptions
	for _, opt := range opts {
		switch v := opt.(type) {
		case ThreadOption:
			o.thread = v.id
		case NamespaceOption:
			o.ns = v.ns
		case historyFunc:
			v(&o)
		}
	}
	return o
}

// readOptions are the options of State and MermaidPath.
type readOptions struct {
	thread       string
	checkpointID string
	ns           string // WithNamespace
	subgraphs    bool   // WithSubgraphs
}

// historyOptions are the options of History.
type historyOptions struct {
	thread string
	ns     string // WithNamespace
	filter map[string]any
	before string
	limit  int
}

// WithFilter keeps, in History, checkpoints whose metadata has these
// values ("source", "step", "run_id" or user metadata keys).
func WithFilter(md map[string]any) HistoryOption {
	return historyFunc(func(o *historyOptions) { o.filter = md })
}

// WithBefore keeps, in History, checkpoints older than the given id.
func WithBefore(checkpointID string) HistoryOption {
	return historyFunc(func(o *historyOptions) { o.before = checkpointID })
}

// WithLimit caps the number of checkpoints History yields.
func WithLimit(n int) HistoryOption {
	return historyFunc(func(o *historyOptions) { o.limit = n })
}

// runOptions are the options of Invoke and Stream, and of UpdateState
// (which reads thread, checkpointID, wait, runID and metadata).

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
	durability      Durability // WithRunDurability, when hasDurability
	hasDurability   bool
	// nested: a graph invoked from a node's body (see nest); resumeSubset:
	// resumeByID may hold ids of interrupts raised elsewhere, skipped.
	nested       bool
	resumeSubset bool
}

// DefaultRecursionLimit is the number of supersteps one call may run
// unless WithRecursionLimit says otherwise (as in LangGraph.js).
const DefaultRecursionLimit = 25

// WithThread names the thread a call runs on, reads or updates. It is an
// option of every call (see ThreadOption).
func WithThread(id string) ThreadOption { return ThreadOption{id: id} }

// WithCheckpoint pins a call to one checkpoint of the thread: State and
// MermaidPath read it, Invoke or Stream replays from it on a new branch (a
// fork), leaving the old history untouched, and UpdateState forks the
// thread from it.
func WithCheckpoint(id string) CheckpointOption { return CheckpointOption{id: id} }

// WithRecursionLimit sets the most supersteps the call may run
// (default: the graph's WithDefaultRecursionLimit, else
// DefaultRecursionLimit).
func WithRecursionLimit(n int) RunOption { return runFunc(func(o *runOptions) { o.limit = n }) }

// WithMaxConcurrency bounds how many tasks of a step run at once (default:
// all of them).
func WithMaxConcurrency(n int) RunOption {
	return runFunc(func(o *runOptions) { o.maxConcurrency = n })
}

// StreamModes selects what Stream yields (default: Values).
func StreamModes(modes ...Mode) RunOption {
	return runFunc(func(o *runOptions) {
		for _, m := range modes {
			o.modes |= m
		}
	})
}

// WithRunID sets the run id recorded in checkpoint metadata (default: a
// new UUIDv7).
func WithRunID(id string) WriteOption { return func(o *runOptions) { o.runID = id } }

// WithMetadata adds user metadata to every checkpoint the call writes; List
// and History filters can match it.
func WithMetadata(md map[string]any) WriteOption { return func(o *runOptions) { o.metadata = md } }

// WaitForThread makes a call wait while another run holds the thread,
// instead of failing with a busy error (checkpoint.ErrBusy): a run of this
// process until it ends, one of another process by retrying its lease with
// backoff until it is released or expires. The call's context bounds the
// wait.
func WaitForThread() WriteOption { return func(o *runOptions) { o.wait = true } }

// SubgraphsOption reaches into subgraphs; it is an option of Invoke,
// Stream and State (a RunOption and a StateOption). Make one with
// WithSubgraphs.
type SubgraphsOption struct{}

func (SubgraphsOption) runOption()   {}
func (SubgraphsOption) stateOption() {}

// WithSubgraphs makes Stream also yield the events of subgraphs, and of
// graphs a node invokes (Invoke or Stream in its body), tagged with their
// namespace; an event of a graph over another state type carries itself
// in Event.Nested. Given to State (LangGraph's get_state(subgraphs=True)),
// it fills TaskInfo.State of each pending task of a subgraph node with
// that subgraph's own snapshot, itself read WithSubgraphs.
func WithSubgraphs() SubgraphsOption { return SubgraphsOption{} }

// NamespaceOption names a checkpoint namespace of the thread: a
// subgraph's; it is an option of State and History (a StateOption and a
// HistoryOption). Make one with WithNamespace.
type NamespaceOption struct{ ns string }

func (NamespaceOption) stateOption()   {}
func (NamespaceOption) historyOption() {}

// WithNamespace makes State and History read the checkpoints a subgraph
// stored in the namespace ns of the thread (LangGraph's checkpoint_ns),
// as TaskInfo.Namespace names it. Call them on the parent: the namespace's
// "node:task-id" parts lead to the subgraph, through nested subgraphs,
// whose graph decodes the snapshots. A subgraph over another state type
// (AddSubgraphMapped) cannot be read this way, its snapshots not being an
// S: State WithSubgraphs gives its snapshot in TaskInfo.State.
func WithNamespace(ns string) NamespaceOption { return NamespaceOption{ns: ns} }

// InterruptBefore adds nodes to interrupt before, for this call only.
func InterruptBefore(nodes ...string) RunOption {
	return runFunc(func(o *runOptions) { o.interruptBefore = append(o.interruptBefore, nodes...) })
}

// InterruptAfter adds nodes to interrupt after, for this call only.
func InterruptAfter(nodes ...string) RunOption {
	return runFunc(func(o *runOptions) { o.interruptAfter = append(o.interruptAfter, nodes...) })
}

// Resume answers the pending interrupt of the thread: its Interrupt call
// returns v when the node runs again. When several interrupts are pending,
// use ResumeByID.
func Resume(v any) RunOption { return runFunc(func(o *runOptions) { o.resume = append(o.resume, v) }) }

// ResumeByID answers pending interrupts by their ids (see Interruption.ID).
func ResumeByID(values map[string]any) RunOption {
	return runFunc(func(o *runOptions) { o.resumeByID = values })
}
