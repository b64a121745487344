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
	// (a run that was stopped, or a static interrupt, which the runtime
	// does not store).
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
	// Nodes are the nodes of the next step (for StateInterrupted and
	// StateError, the nodes that paused or failed).
	Nodes []string `json:"nodes,omitempty"`
	// Error is the first task error, for StateError.
	Error string `json:"error,omitempty"`
}

// String returns the status for a table: "done", "pending a, b",
// "interrupted (a)" or "error (a: message)".
func (s Status) String() string {
	switch s.State {
	case StatePending:
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
// are scheduled, done otherwise.
func StatusOf(tup *checkpoint.Tuple) (Status, error) {
	sched, err := ParseSchedule(tup)
	if err != nil {
		return Status{}, err
	}
	ints, errs, err := Pending(tup)
	if err != nil {
		return Status{}, err
	}
	switch {
	case len(errs) > 0:
		st := Status{State: StateError, Error: errs[0].Error}
		for _, e := range errs {
			st.Nodes = appendUnique(st.Nodes, e.Node)
		}
		return st, nil
	case len(ints) > 0:
		st := Status{State: StateInterrupted}
		for _, in := range ints {
			st.Nodes = appendUnique(st.Nodes, in.Node)
		}
		return st, nil
	case !sched.Done():
		st := Status{State: StatePending}
		for _, n := range sched.Next() {
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
