package graph

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// Mode selects a kind of event of Stream. Modes combine with StreamModes.
type Mode uint8

// The stream modes.
const (
	// Values: the whole state after each step (and after the input).
	Values Mode = 1 << iota
	// Updates: each task's update, as soon as the task finishes.
	Updates
	// Tasks: each task's start and its result (LangGraph's debug/tasks).
	Tasks
	// Custom: what nodes emit with Emit.
	Custom
	// Messages: LLM token chunks from StreamingFunc, each tagged with the
	// node, step, task id and namespace of the task that streamed it
	// (LangGraph's messages mode and its metadata: langgraph_node,
	// langgraph_step, the task id, checkpoint_ns).
	Messages
	// Checkpoints: each checkpoint as it is saved.
	Checkpoints
	// Interrupts: the interrupts that stopped the run.
	Interrupts
)

func (m Mode) String() string {
	names := []string{"values", "updates", "tasks", "custom", "messages", "checkpoints", "interrupts"}
	var out []string
	for i, n := range names {
		if m&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "|")
}

// Event is one item of a Stream, tagged with the mode that produced it.
// Only the fields of its mode are set.
type Event[S any] struct {
	Mode Mode
	// Namespace is "" for the graph itself and names the subgraph task
	// for events of subgraphs (see WithSubgraphs).
	Namespace string
	Step      int
	// Node and TaskID name the task, for Updates, Tasks, Custom and
	// Messages events.
	Node   string
	TaskID string

	// State is the state after the step (Values).
	State S
	// Update is what the task returned (Updates, and Tasks results).
	Update state.Update[S]
	// Task says whether a Tasks event is a start or a result, and the
	// result's error.
	Task *TaskEvent
	// Custom is what the node emitted (Custom).
	Custom any
	// Chunk is a streamed LLM token chunk (Messages), and MessageID the
	// id of the message it belongs to when the node gave one
	// (StreamingFunc).
	Chunk     []byte
	MessageID string
	// Checkpoint is the config of the saved checkpoint (Checkpoints), and
	// Metadata its metadata.
	Checkpoint *checkpoint.Config
	Metadata   *checkpoint.Metadata
	// Cached says that the task of an Updates event did not run in this
	// call, LangGraph's {"__metadata__": {"cached": True}}: its update was
	// restored from the writes an earlier call saved (a resumed step), or
	// taken from the node cache (WithCache). The Tasks result event tells
	// which (TaskEvent.Cached, TaskEvent.FromCache).
	Cached bool
	// Interrupts are the pending interrupts (Interrupts; and the last
	// Updates or Values event of a stream stopped by interrupts that did
	// not ask for Interrupts, see InterruptNode).
	Interrupts []Interruption
	// Nested is the event itself, an Event[T] of T's own state type, when
	// the event comes from a graph over another state type that a node
	// invoked (see WithSubgraphs): State and Update, typed T, are there;
	// the other fields are copied.
	Nested any
}

// eventHeader is the part of an Event that does not depend on its state
// type.
type eventHeader struct {
	mode                  Mode
	namespace, node, task string
	step                  int
	taskEv                *TaskEvent
	custom                any
	chunk                 []byte
	msgID                 string
	cfg                   *checkpoint.Config
	md                    *checkpoint.Metadata
	interrupts            []Interruption
}

func (e Event[S]) header() eventHeader {
	return eventHeader{mode: e.Mode, namespace: e.Namespace, node: e.Node, task: e.TaskID, step: e.Step, taskEv: e.Task,
		custom: e.Custom, chunk: e.Chunk, msgID: e.MessageID, cfg: e.Checkpoint, md: e.Metadata, interrupts: e.Interrupts}
}

// foreign is an Event of another state type.
type foreign interface{ header() eventHeader }

// eventOf makes the Event of a stream over S that carries ev, an event
// of a nested graph over another state type.
func eventOf[S any](ev foreign) Event[S] {
	h := ev.header()
	return Event[S]{Mode: h.mode, Namespace: h.namespace, Step: h.step, Node: h.node, TaskID: h.task, Task: h.taskEv,
		Custom: h.custom, Chunk: h.chunk, MessageID: h.msgID, Checkpoint: h.cfg, Metadata: h.md, Interrupts: h.interrupts, Nested: ev}
}

// InterruptNode is the Node of the Updates event that ends a stream
// stopped by interrupts when the stream did not ask for the Interrupts
// mode: LangGraph's {"__interrupt__": …} update. A stream with Values but
// neither Updates nor Interrupts ends with a Values event carrying the
// interrupts instead. Either way, every stream ends with what it stopped
// at.
const InterruptNode = "__interrupt__"

// TaskEvent describes a task's start or result.
type TaskEvent struct {
	// Send is the task's position among its step's Sends, or -1 for a
	// task its edges triggered.
	Send     int
	Result   bool  // false: the task starts; true: it finished
	Err      error // the task's error, on a result
	Attempts int   // attempts made, on a result
	Cached   bool  // the result came from saved writes (a resumed step)
	// FromCache: the node did not run, its result came from the node
	// cache (WithCache), on a result.
	FromCache bool
	// Arg is a Send task's input, on a start: a *S, or the argument of
	// a node of its own type (SendArg). Nil for a task its edges
	// triggered, whose input is the state of the step before.
	Arg any
}

// taskScope is what a running task carries in its context. It is the
// task's context itself (one allocation per task): Value answers scopeKey
// with the scope. Each task has its own, never reused, since a node's
// context may outlive the node.
type taskScope struct {
	context.Context
	taskInfo
}

// hitlState is what Interrupt needs: the resume values, the interrupts
// raised, and how many Interrupt calls the node made.
type hitlState struct {
	resume     []any          // values to return from Interrupt calls, in order
	resumeByID map[string]any // the same, by interrupt id, for subgraphs
	interrupts []Interruption
	counter    int
}

// interrupts returns the interrupts the task raised.
func (ti *taskInfo) interrupts() []Interruption {
	if ti.hitl == nil {
		return nil
	}
	return ti.hitl.interrupts
}

// hitlOf returns the task's hitl state, making it if needed.
func (ti *taskInfo) hitlOf() *hitlState {
	if ti.hitl == nil {
		ti.hitl = &hitlState{}
	}
	return ti.hitl
}

// newHITL returns the hitl state of a task with resume values, or nil.
func newHITL(resume []any, byID map[string]any) *hitlState {
	if len(resume) == 0 && len(byID) == 0 {
		return nil
	}
	return &hitlState{resume: resume, resumeByID: byID}
}

// taskInfo describes a running task, for Emit, Interrupt and subgraphs.
type taskInfo struct {
	node   string
	step   int
	taskID string
	// checkpointID is the checkpoint holding the task ("" without one).
	checkpointID string
	emit         func(ev eventOut) // nil when nobody listens; call through send
	emitMu       sync.Mutex        // serializes emit, and guards done
	done         bool              // the task finished: later events are dropped
	modes        Mode
	sendIdx      int32 // the position among the step's Sends, -1 for an edge's task
	// hitl is the task's human-in-the-loop state, made only for tasks
	// that are resumed or call Interrupt.
	hitl *hitlState
	// parent is what subgraphs started by the task inherit.
	parent *parentInfo
	// ext holds what few tasks need (a retry's attempt, nested graphs,
	// Durable results), made on first use: the scope of every task stays
	// small.
	ext atomic.Pointer[taskExt]
}

// taskExt is the part of a task's scope made on first use.
type taskExt struct {
	// attempt is the node's current try when it is a retry (RunInfo).
	attempt atomic.Int32
	// nested counts the graphs the node's current try invoked (nest).
	nested atomic.Int32
	// durable holds the task's Durable results (guarded by durMu).
	durMu   sync.Mutex
	durable *durableState
	// item is the Send's argument of a node that takes its own type
	// (SendArg); set before the task starts.
	item any
	// records counts the task's Record calls in this process (record.go).
	records atomic.Int32
}

// extOf returns the task's ext, making it if needed. It is safe for
// concurrent use.
func (ti *taskInfo) extOf() *taskExt {
	if e := ti.ext.Load(); e != nil {
		return e
	}
	e := &taskExt{}
	if ti.ext.CompareAndSwap(nil, e) {
		return e
	}
	return ti.ext.Load()
}

// namespace is the namespace of the run the task belongs to.
func (ti *taskInfo) namespace() string {
	if ti.parent == nil {
		return ""
	}
	return ti.parent.ns
}

// eventOut is an event on its way from a task to the run's stream, with
// the state type erased.
type eventOut struct {
	mode   Mode
	custom any
	chunk  []byte
	msgID  string // of a Messages chunk (StreamingFunc)
	sub    any    // a subgraph's event, for WithSubgraphs
}

type scopeKey struct{}

// Value returns the scope for scopeKey, and defers to the parent context
// for anything else.
func (s *taskScope) Value(key any) any {
	if key == (scopeKey{}) {
		return s
	}
	return s.Context.Value(key)
}

func scopeOf(ctx context.Context) *taskScope {
	s, _ := ctx.Value(scopeKey{}).(*taskScope)
	return s
}

// send hands a task's event to its run, one at a time, and drops it once
// the task has finished (a goroutine the node left running may still
// emit).
func (ti *taskInfo) send(ev eventOut) {
	ti.emitMu.Lock()
	defer ti.emitMu.Unlock()
	if !ti.done && ti.emit != nil {
		ti.emit(ev)
	}
}

// finish marks the task finished: Emit and StreamingFunc do nothing after.
func (ti *taskInfo) finish() {
	ti.emitMu.Lock()
	ti.done = true
	ti.emitMu.Unlock()
}

// Emit sends v to the Custom stream of the run the node belongs to. It
// does nothing outside a node or when nobody streams Custom. It is safe to
// call from goroutines the node starts, until the node returns.
func Emit(ctx context.Context, v any) {
	if s := scopeOf(ctx); s != nil && s.emit != nil && s.modes&Custom != 0 {
		s.send(eventOut{mode: Custom, custom: v})
	}
}

// Streams reports whether the run of the node ctx belongs to streams any
// of modes (Messages|Custom, say); false outside a node. A node that asks
// a model for a token stream only for its consumers checks it first:
// Invoke streams nothing, so its model calls can be plain requests.
func Streams(ctx context.Context, modes Mode) bool {
	s := scopeOf(ctx)
	return s != nil && s.emit != nil && s.modes&modes != 0
}

// StreamingFunc returns a function for langchaingo's
// llms.WithStreamingFunc that sends each chunk to the Messages stream,
// tagged with the node, step, task id and namespace (Event.Node, Step,
// TaskID, Namespace; RunInfo gives a node the same) and with messageID
// (Event.MessageID), so a consumer of parallel model calls, or of several
// messages of one node, tells them apart (LangGraph's messages mode gives
// each chunk its message's id); "" leaves Event.MessageID empty. Outside a
// node, or when nobody streams Messages, the func does nothing.
func StreamingFunc(ctx context.Context, messageID string) func(ctx context.Context, chunk []byte) error {
	s := scopeOf(ctx)
	return func(_ context.Context, chunk []byte) error {
		if s != nil && s.emit != nil && s.modes&Messages != 0 {
			s.send(eventOut{mode: Messages, chunk: append([]byte(nil), chunk...), msgID: messageID})
		}
		return nil
	}
}
