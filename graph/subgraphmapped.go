package graph

import (
	"context"

	"github.com/stategraph/stategraph/state"
)

// AddSubgraphMapped adds sub, a compiled graph over another state type C,
// as node name of g (LangGraph's subgraph with a different state schema,
// called from a node). in maps the parent's state to the subgraph's
// input; out maps the parent's state and the subgraph's final state to
// the node's update, so the parent needs no fields of the subgraph's and
// no type assertion.
//
// The subgraph runs as a graph invoked from the node's body does: without
// a checkpointer of its own it inherits the parent's, its thread and its
// lease, in the namespace "name:task-id" (TaskInfo.Namespace); it can
// interrupt, and is resumed from its own checkpoint when the node runs
// again (in is not applied again); State WithSubgraphs gives the pending
// task the subgraph's *Snapshot[C]; a parent streaming WithSubgraphs
// receives its events as Event.Nested, each an Event[C]. Mermaid draws it
// as a subgraph block.
func AddSubgraphMapped[P, C any](g *StateGraph[P], name string, sub *Compiled[C], in func(P) state.Update[C], out func(parent P, result C) state.Update[P], opts ...NodeOption) *StateGraph[P] {
	switch {
	case sub == nil:
		g.errorf("subgraph %q is nil", name)
		return g
	case in == nil || out == nil:
		g.errorf("subgraph %q: the input and output mapping functions must not be nil", name)
		return g
	}
	g.AddNode(name, func(ctx context.Context, s P) (state.Update[P], error) {
		res, err := sub.Invoke(ctx, in(s))
		if upd, ok := ParentUpdate[P](err); ok { // a node of it handed off to g (ToParent)
			return upd, nil
		}
		if err != nil {
			return state.Update[P]{}, err
		}
		return out(s, res), nil
	}, opts...)
	if n := g.nodes[name]; n != nil && n.sub == nil {
		n.sub = sub
	}
	return g
}
