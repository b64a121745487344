package graph

import (
	"context"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// Observer watches runs from the inside: each call (and each subgraph's
// run within it), each superstep, each task and each checkpoint write. It
// is how tracing and metrics plug in (package telemetry implements it with
// OpenTelemetry); the runtime calls nothing when no Observer is given.
//
// Each Start method returns the context the observed work runs in (the
// runs, steps and tasks below it, the node's body, the saver's calls) and
// a function the runtime calls exactly once when that work ends. Tasks of
// one step run concurrently and a DurabilityAsync save ends on a goroutine
// of its own, so an Observer must be safe for concurrent use. The end
// functions must not block: they run on the run's critical path.
type Observer interface {
	// StartRun is called when a call (Invoke, Stream, a subgraph's or a
	// nested graph's run) starts, before it reads its thread.
	StartRun(ctx context.Context, run RunStart) (context.Context, func(RunEnd))
	// StartStep is called when a superstep's tasks are about to run.
	StartStep(ctx context.Context, step StepStart) (context.Context, func(StepEnd))
	// StartTask is called when a task's node is about to run (once per
	// task, its retries included). Tasks restored from writes an earlier
	// call saved do not run and are not observed. The Info has no
	// IdempotencyKey (a hash per task the runtime does not spend for an
	// observer); RunInfo in the node gives it. A task of a node with a
	// cache policy (WithCache) is observed whether or not its node runs:
	// when its result came from the node cache, its TaskEnd says
	// FromCache, with no attempts.
	StartTask(ctx context.Context, task Info) (context.Context, func(TaskEnd))
	// StartSave is called when a checkpoint is about to be stored.
	StartSave(ctx context.Context, save SaveStart) (context.Context, func(SaveEnd))
}

// MetadataObserver is an Observer that adds entries to the metadata of
// every checkpoint a run stores (a trace context, say, so that a later run
// resuming the thread can link to this one through RunEnd.Previous).
// Entries the caller gave with WithMetadata win over its own.
type MetadataObserver interface {
	Observer
	// CheckpointMetadata returns the entries for the run whose context is
	// ctx (the one StartRun returned). It is called once per run.
	CheckpointMetadata(ctx context.Context) map[string]any
}

// WithObserver makes o watch every run of the compiled graph, and of the
// subgraphs and nested graphs its nodes run that have no Observer of
// their own.
func WithObserver(o Observer) CompileOption {
	return func(co *compileOptions) { co.observer = o }
}

// RunStart describes a run that starts.
type RunStart struct {
	// Graph is the graph's name (WithName), "" if it has none.
	Graph string
	// ThreadID is the run's thread ("" without a checkpointer).
	ThreadID string
	// Namespace is the run's checkpoint namespace ("" for the top graph).
	Namespace string
	// RunID is the call's id (WithRunID or a new UUIDv7); a subgraph's
	// run has its parent's.
	RunID string
	// Node is the parent's node running this graph, "" for a top-level
	// call.
	Node string
}

// RunEnd describes how a run ended.
type RunEnd struct {
	// From is the checkpoint the run started from: the thread's latest
	// (or the pinned one) it resumed or added input to, or the input
	// checkpoint of a new thread; "" without a checkpointer.
	From string
	// Checkpoint is the last checkpoint the run stored or started from.
	Checkpoint string
	// Previous is the user metadata (checkpoint.Metadata.Extra) of the
	// thread's checkpoint the run continued from, nil on a new thread.
	Previous map[string]any
	// Steps is how many supersteps ran (restored steps are not counted).
	Steps int
	// Err is the run's error: nil when it finished, an *InterruptError
	// when it stopped at interrupts.
	Err error
}

// StepStart describes a superstep about to run its tasks.
type StepStart struct {
	// Step is the step's number (the first node runs in step 1).
	Step int
	// Namespace is the run's checkpoint namespace.
	Namespace string
	// Nodes names the step's tasks, in task order, repeats for Sends
	// included.
	Nodes []string
	// Restored is how many of them kept the writes an earlier call saved
	// and do not run again.
	Restored int
}

// StepEnd describes how a superstep ended.
type StepEnd struct {
	// Err is the step's error: an *InterruptError when tasks interrupted.
	Err error
}

// TaskEnd describes how a task ended.
type TaskEnd struct {
	// Attempts is how many times the node ran (retries included).
	Attempts int
	// Err is the task's error (a *NodeError), nil when it succeeded or
	// interrupted.
	Err error
	// Interrupts are the interrupts the task stopped at.
	Interrupts []Interruption
	// Writes is how many field writes the task made.
	Writes int
	// FromCache says the node did not run: the task's writes came from
	// the node cache (WithCache).
	FromCache bool
}

// SaveStart describes a checkpoint about to be stored.
type SaveStart struct {
	// ThreadID and Namespace say where.
	ThreadID, Namespace string
	// CheckpointID is the new checkpoint's id.
	CheckpointID string
	// Source and Step are its metadata's.
	Source checkpoint.Source
	Step   int
	// Saver is the checkpointer.
	Saver checkpoint.Saver
	// Durability is the run's.
	Durability Durability
	// Bytes is the size of the encoded values it stores (the changed
	// fields and the schedule).
	Bytes int
	// Channels is how many values it stores.
	Channels int
}

// SaveEnd describes how a checkpoint write ended.
type SaveEnd struct {
	// Err is the saver's error.
	Err error
	// Duration is how long the saver took.
	Duration time.Duration
}
