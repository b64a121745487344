package inspect

import (
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// The states of a thread, as Status reports them.
const (
	// StateDone: nothing is scheduled; the thread finished.
	StateDone = "done"
	// StatePending: nodes are scheduled and none has failed or paused
	// (a run that was stopped, or an interrupt after a node, which the
	// runtime does not store).
	StatePending = "pending"
	// StateInterrupted: a node called Interrupt and waits for a resume.
	StateInterrupted = "interrupted"
	// StateError: a task of the next step failed.
	StateError = "error"
)

// Status is where a thread stands at a checkpoint.
type Status struct {
	// State is StateDone, StatePending, StateInterrupted or StateError.
	State string `json:"status"`
	// Nodes are the nodes of the next step, each once (for
	// StateInterrupted and StateError, the nodes that paused or failed).
	Nodes []string `json:"nodes,omitempty"`
	// Error is the first task error, for StateError.
	Error string `json:"error,omitempty"`
	// Cancelled reports that a task of the next step was stopped by a
	// cancellation, as older versions of the runtime recorded it (see
	// TaskError.Cancelled): the run was stopped, the task is pending.
	Cancelled bool `json:"cancelled,omitempty"`
}

// String returns the status for a table: "done", "pending a, b",
// "pending a, b (cancelled)", "interrupted (a)" or "error (a: message)".
func (s Status) String() string {
	switch s.State {
	case StatePending:
		if s.Cancelled {
			return "pending " + strings.Join(s.Nodes, ", ") + " (cancelled)"
		}
		return "pending " + strings.Join(s.Nodes, ", ")
	case StateInterrupted:
		return "interrupted (" + strings.Join(s.Nodes, ", ") + ")"
	case StateError:
		return fmt.Sprintf("error (%s: %s)", strings.Join(s.Nodes, ", "), oneLine(s.Error, 60))
	}
	return s.State
}

// StatusOf returns the status of a thread at the checkpoint tup: an error
// if a task failed there, interrupted if a node paused, pending if nodes
// are scheduled, done otherwise. A task stopped by a cancellation did not
// fail (see TaskError.Cancelled): it leaves the thread pending.
func StatusOf(tup *checkpoint.Tuple) (Status, error) {
	sched, err := ParseSchedule(tup)
	if err != nil {
		return Status{}, err
	}
	tasks, err := Pending(tup)
	if err != nil {
		return Status{}, err
	}
	cancelled := len(tasks.Cancelled) > 0
	switch {
	case len(tasks.Errors) > 0:
		st := Status{State: StateError, Error: tasks.Errors[0].Error, Cancelled: cancelled}
		for _, e := range tasks.Errors {
			st.Nodes = appendUnique(st.Nodes, e.Node)
		}
		return st, nil
	case len(tasks.Interrupts) > 0:
		st := Status{State: StateInterrupted, Cancelled: cancelled}
		for _, in := range tasks.Interrupts {
			st.Nodes = appendUnique(st.Nodes, in.Node)
		}
		return st, nil
	case !sched.Done():
		st := Status{State: StatePending, Cancelled: cancelled}
		for _, n := range sched.Unfinished(tup) {
			st.Nodes = appendUnique(st.Nodes, n)
		}
		return st, nil
	}
	return Status{State: StateDone}, nil
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// oneLine shortens s to at most n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
