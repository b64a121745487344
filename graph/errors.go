package graph

import (
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/state"
)

// Errors of the runtime. Check them with errors.Is.
var (
	// ErrRecursionLimit: a run reached its recursion limit (the most
	// supersteps one call may run) with work still pending. The last
	// checkpoint is intact: raise the limit with WithRecursionLimit and
	// resume the thread.
	ErrRecursionLimit = errors.New("graph: recursion limit reached")
	// ErrInvalidUpdate: a step's writes cannot be applied (two writes to a
	// last-value field, two overwrites, a field outside the schema).
	ErrInvalidUpdate = state.ErrInvalidUpdate
	// ErrInvalidGraph: Compile found the graph malformed; the joined
	// errors name each culprit.
	ErrInvalidGraph = errors.New("graph: invalid graph")
	// ErrInvalidRoute: a router, goto or Send named a node the graph
	// does not declare as a target.
	ErrInvalidRoute = errors.New("graph: invalid route")
	// ErrThreadRequired: the graph has a checkpointer and the call named
	// no thread (use WithThread).
	ErrThreadRequired = errors.New("graph: a thread id is required when the graph has a checkpointer (use graph.WithThread)")
	// ErrNodeTimeout: a node ran past its timeout.
	ErrNodeTimeout = errors.New("graph: node timed out")
	// ErrNothingToResume: Resume or ResumeByID named no pending interrupt
	// (the thread has none, or no interrupt has the id).
	ErrNothingToResume = errors.New("graph: nothing to resume")
	// ErrInvalidAnswer: a resume value does not fit the JSON Schema of
	// the answer its interrupt expects (Interruption.Schema); the error
	// names the interrupt, its node and the field. Nothing was stored.
	ErrInvalidAnswer = errors.New("graph: invalid answer")
	// ErrAmbiguousResume: one Resume value was given while several
	// interrupts are pending; answer them with ResumeByID.
	ErrAmbiguousResume = errors.New("graph: ambiguous resume")
	// ErrGraphMismatch: the thread's checkpoint schedules a node (or a
	// Send to one) that the graph reading it does not have: the thread was
	// saved by another graph, or by this one built with other options.
	// The data is sound; it is not ErrCorrupt.
	ErrGraphMismatch = errors.New("graph: the thread was saved by a different graph")
)

// NodeError is a node's failure: its error after the retry policy gave up,
// its timeout, or a panic turned into an error. Check it with errors.As.
type NodeError struct {
	Node     string // the node's name
	Step     int    // the superstep it ran in
	TaskID   string // the task's id ("" without a checkpointer)
	Attempts int    // how many times it ran
	Err      error  // the cause
	Panic    any    // the recovered panic value, if it panicked
	Stack    []byte // the stack at the panic, if it panicked
}

func (e *NodeError) Error() string {
	what := "failed"
	if e.Panic != nil {
		what = "panicked"
	}
	s := fmt.Sprintf("graph: node %q %s at step %d", e.Node, what, e.Step)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

// RouteError is a routing failure after a node: its router returned an
// error or a target that is not declared.
type RouteError struct {
	Node string // the node whose edges were being followed
	Step int
	Err  error
}

func (e *RouteError) Error() string {
	return fmt.Sprintf("graph: routing after node %q at step %d: %v", e.Node, e.Step, e.Err)
}

// Unwrap returns the cause.
func (e *RouteError) Unwrap() error { return e.Err }
