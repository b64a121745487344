package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// Status is where a run stands.
type Status string

// The statuses of a run. Pending and Running are active: the thread is
// busy while a run is in one of them. The others are final.
const (
	// StatusPending: enqueued, or waiting for another attempt after a
	// transient failure (Run.Error then says why), or waiting behind
	// another run of its thread.
	StatusPending Status = "pending"
	// StatusRunning: a worker is executing it.
	StatusRunning Status = "running"
	// StatusSuccess: the graph ran to its end; Run.Result holds the final
	// state.
	StatusSuccess Status = "success"
	// StatusError: the run failed for good (a node's error, a rejected
	// run, attempts exhausted); Run.Error says why.
	StatusError Status = "error"
	// StatusInterrupted: the graph stopped at interrupts (human in the
	// loop); Run.Interrupts lists them and Run.Result holds the state so
	// far. Answer them with a new run carrying Request.Resume.
	StatusInterrupted Status = "interrupted"
	// StatusCancelled: cancelled by Client.Cancel or by a run with the
	// Interrupt strategy. The thread keeps the checkpoints it reached.
	StatusCancelled Status = "cancelled"
)

// Done reports whether the status is final.
func (s Status) Done() bool {
	switch s {
	case StatusSuccess, StatusError, StatusInterrupted, StatusCancelled:
		return true
	}
	return false
}

// Strategy says what a run does when its thread is busy with another run
// (LangGraph Platform's multitask strategies).
type Strategy string

// The multitask strategies.
const (
	// Reject (the default): a run for a busy thread is refused. Enqueue
	// returns an error wrapping checkpoint.ErrConflict when the thread is
	// busy at that moment; a run that finds the thread busy when it is
	// executed ends with StatusError and an Err wrapping
	// checkpoint.ErrConflict.
	Reject Strategy = "reject"
	// Enqueue: the run waits until the runs of the thread enqueued before
	// it have finished, then runs. Runs of a thread with this strategy run
	// one after another in the order they were enqueued.
	Enqueue Strategy = "enqueue"
	// Interrupt: the runs of the thread enqueued before it are cancelled
	// (StatusCancelled; a running one through River's job cancellation,
	// keeping the checkpoints it reached), then the run starts once they
	// have stopped.
	Interrupt Strategy = "interrupt"
	// Rollback: as Interrupt, the runs of the thread enqueued before it
	// are cancelled, and then their work is undone: their records are
	// deleted and the run starts from the checkpoint the first of them
	// started from, on a new branch (a fork; the rolled-back checkpoints
	// stay in the thread's history, off the head, until the thread is
	// pruned). When the first of them started the thread, the thread is
	// deleted and the run starts it afresh. LangGraph Platform's
	// "rollback".
	Rollback Strategy = "rollback"
)

func (s Strategy) valid() bool {
	switch s {
	case Reject, Enqueue, Interrupt, Rollback:
		return true
	}
	return false
}

// Run is a run as stored: what it is, where it stands and how it ended.
type Run struct {
	ID       string
	Thread   string
	Graph    string
	Status   Status
	Strategy Strategy
	// JobID is the River job that executes the run.
	JobID int64
	// Attempts counts the executions of the run that got the thread (a
	// run resumed after a crash or a transient error has several).
	Attempts int
	// Result is the final state as JSON (StatusSuccess), or the state
	// where the run stopped (StatusInterrupted).
	Result json.RawMessage
	// Interrupts are the pending interrupts of an interrupted run.
	Interrupts []graph.Interruption
	// Error is why the run failed or was cancelled, or, while it is
	// pending again, why its last attempt failed.
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time

	code errorCode
}

// Err returns the run's failure as an error: nil unless the run ended
// with StatusError or StatusCancelled. A run refused because its thread
// was busy gives an error wrapping checkpoint.ErrConflict; a cancelled one
// an error wrapping ErrCancelled.
func (r *Run) Err() error {
	switch r.Status {
	case StatusError, StatusCancelled:
	default:
		return nil
	}
	err := &RunError{RunID: r.ID, Thread: r.Thread, Msg: r.Error, code: r.code}
	if r.Status == StatusCancelled {
		err.code = codeCancelled
	}
	return err
}

// errorCode classifies a stored error, so Err can wrap the right
// sentinel after a round trip through the database.
type errorCode string

const (
	codeNone      errorCode = ""
	codeConflict  errorCode = "conflict"
	codeCancelled errorCode = "cancelled"
	codeFailed    errorCode = "failed"
)

// RunError is a run's failure as Run.Err returns it.
type RunError struct {
	RunID  string
	Thread string
	Msg    string
	code   errorCode
}

func (e *RunError) Error() string {
	return fmt.Sprintf("worker: run %s on thread %q: %s", e.RunID, e.Thread, e.Msg)
}

// Is makes errors.Is find checkpoint.ErrConflict in a rejected run's
// error and ErrCancelled in a cancelled one's.
func (e *RunError) Is(target error) bool {
	switch e.code {
	case codeConflict:
		return target == checkpoint.ErrConflict
	case codeCancelled:
		return target == ErrCancelled
	}
	return false
}

// Errors of the package. Check them with errors.Is.
var (
	// ErrNotFound: no run has the id.
	ErrNotFound = errors.New("worker: run not found")
	// ErrCancelled: the run was cancelled.
	ErrCancelled = errors.New("worker: run cancelled")
	// ErrUnknownGraph: the run names a graph the worker has not
	// registered.
	ErrUnknownGraph = errors.New("worker: graph not registered")
)

// EventKind says what a RunEvent reports.
type EventKind string

// The kinds of RunEvent.
const (
	// EventStatus: the run's status changed (or, first, what it is).
	EventStatus EventKind = "status"
	// EventCheckpoint: the run saved a checkpoint.
	EventCheckpoint EventKind = "checkpoint"
)

// RunEvent is one thing that happened to a run, as Follow yields it.
type RunEvent struct {
	Kind  EventKind
	RunID string
	// Status is the run's status when the event was read. For
	// EventStatus it is the new status.
	Status Status
	// Error is set on status events of a failed or cancelled run, and of
	// a pending run whose last attempt failed (it will be retried).
	Error string
	// Checkpoint, Step, Source and Nodes describe the saved checkpoint
	// (EventCheckpoint).
	Checkpoint checkpoint.Config
	Step       int
	Source     checkpoint.Source
	Nodes      []string
	// At is when the status changed or the checkpoint was made.
	At time.Time
	// Run is the run as read with a status event (nil for checkpoint
	// events).
	Run *Run
}
