package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// RestingStatus is the status thread t has while no run holds it, read
// once from its latest state on g: interrupted when that state has
// pending interrupts, stopped at an interrupt-before breakpoint, or has
// tasks left after a run t's record says was interrupted (a static
// breakpoint after a node records no interrupt); else error when t's
// record says its last run failed; else idle. The server stores it in
// the record (ThreadRecord.Status) when a run ends and when it writes a
// thread's state otherwise, so that a thread search reads no state; a
// Store that records threads other programs write (the studio's) sets it
// likewise when it records one or sees its head move. A nil g (a thread
// without a graph yet) reads no state.
func RestingStatus(ctx context.Context, g Graph, t ThreadRecord) (string, error) {
	var st *State
	if g != nil {
		var err error
		st, err = g.State(ctx, t.ThreadID, "")
		if err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
			return "", fmt.Errorf("thread %q: status: %w", t.ThreadID, err)
		}
	}
	return restingStatus(t, st), nil
}

// restingStatus is RestingStatus for thread t whose latest state is st
// (nil: no checkpoint).
func restingStatus(t ThreadRecord, st *State) string {
	switch {
	case st != nil && (len(st.Interrupts) > 0 || stoppedAtBreakpoint(st) || t.Status == StatusInterrupted && len(st.Next) > 0):
		return StatusInterrupted
	case t.Status == StatusError:
		return StatusError
	}
	return StatusIdle
}

// atRest stores in t the status it has at rest (see RestingStatus),
// keeping t's recorded status when the state cannot be read: the caller
// stores t after a write it already made.
func (s *Server) atRest(ctx context.Context, t *ThreadRecord) {
	if st, err := RestingStatus(ctx, s.graphOf(*t), *t); err == nil {
		t.Status = st
	}
}

// stoppedAtBreakpoint reports whether st's run stopped before a task at an
// interrupt-before breakpoint, whoever ran it (a thread written by another
// program has no run record saying so).
func stoppedAtBreakpoint(st *State) bool {
	for _, t := range st.Tasks {
		if t.Breakpoint && !t.Done {
			return true
		}
	}
	return false
}
