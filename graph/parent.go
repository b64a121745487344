package graph

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/stategraph/stategraph/state"
)

// ToParent returns the error a node inside a subgraph returns to hand
// control to its parent graph, a graph over P (LangGraph's
// Command(graph=Command.PARENT, goto=…, update=…)): the subgraph's run
// stops there, without applying the node's step, and the parent's
// subgraph node — added with AddSubgraph, or AddSubgraphMapped — returns
// update as its own, as if it had returned it: its writes apply to the
// parent's state and its Goto and Sends run next. The parent node declares
// the nodes it may go to (WithDestinations).
//
//	return state.Update[Child]{}, graph.ToParent(state.Update[Parent]{
//		Writes: []state.Write[Parent]{note.Set("from the researcher")},
//		Goto:   []string{"writer"},
//	})
//
// Only update reaches the parent, as in LangGraph: the writes of the
// subgraph's earlier steps do not, so a handoff that must carry the
// subgraph's state (its conversation) puts it in update.
//
// The nearest enclosing subgraph node over P takes it: a subgraph over
// another type passes it on. When none does, the run fails with the error,
// which names P and the goto. A retry policy never retries it. A node that
// invokes a graph from its body (Compiled.Invoke in a NodeFunc) gets it
// as the call's error, and may take it with ParentUpdate.
//
// On a resume after a crash mid-handoff the parent's node runs again; its
// subgraph resumes from its own checkpoint, runs the handing-off node
// again and hands off again, so the parent's update is applied once, with
// the parent's step.
func ToParent[P any](update state.Update[P]) error { return &ParentCommand[P]{Update: update} }

// ParentCommand is the error ToParent returns: Update, for a parent graph
// over P.
type ParentCommand[P any] struct {
	Update state.Update[P]
}

func (e *ParentCommand[P]) Error() string {
	return fmt.Sprintf("graph: a node handed control to its parent graph (goto %v) with no subgraph node over %s to take it: ToParent needs the node's graph to run as a subgraph of a graph over that type",
		e.Update.Goto, reflect.TypeFor[P]())
}

func (e *ParentCommand[P]) handoff() {}

// ParentUpdate returns the update of the ParentCommand for a graph over P
// that err carries, if it carries one (see ToParent).
func ParentUpdate[P any](err error) (state.Update[P], bool) {
	var pc *ParentCommand[P]
	if err == nil || !errors.As(err, &pc) {
		return state.Update[P]{}, false
	}
	return pc.Update, true
}

// IsHandoff reports whether err carries a ToParent command, for any type:
// code that turns errors into values (a tool node's error handler) passes
// such an error on.
func IsHandoff(err error) bool {
	var h interface{ handoff() }
	return err != nil && errors.As(err, &h)
}
