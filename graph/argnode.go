package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/stategraph/stategraph/state"
)

// AddArgNode adds a node that receives its own argument type A rather
// than the state: each run of it is a Send made with SendArg carrying an
// A (LangGraph's Send("node", {...}) to a node with its own input schema).
// A map-reduce's mapper so needs no per-item field in the state and no
// type assertion. The argument is stored with the step's schedule as
// JSON (so A must survive encoding/json) and decoded back into an A when
// the task runs again after a resume or a crash.
//
// An arg node runs only from SendArg: a plain Send to it, or a SendArg to
// another node or of another type, fails the step with a *RouteError
// (ErrInvalidRoute); reached by an edge or a goto it fails, naming the
// node, for want of its argument.
func AddArgNode[S, A any](g *StateGraph[S], name string, fn func(ctx context.Context, arg A) (state.Update[S], error), opts ...NodeOption) *StateGraph[S] {
	if fn == nil {
		g.errorf("node %q has a nil function", name)
		return g
	}
	g.AddNode(name, func(ctx context.Context, _ S) (state.Update[S], error) {
		sc := scopeOf(ctx)
		var item any
		if sc != nil {
			if e := sc.ext.Load(); e != nil {
				item = e.item
			}
		}
		if item == nil {
			return state.Update[S]{}, fmt.Errorf("node %q takes a %s from graph.SendArg: it ran without one", name, reflect.TypeFor[A]())
		}
		if b, ok := item.(argBox[A]); ok {
			return fn(ctx, b.v)
		}
		arg, err := convert[A](item) // restored from a checkpoint
		if err != nil {
			return state.Update[S]{}, fmt.Errorf("node %q: its argument: %w", name, err)
		}
		return fn(ctx, arg)
	}, opts...)
	if n := g.nodes[name]; n != nil {
		n.argType = reflect.TypeFor[A]()
	}
	return g
}

// SendArg returns a Send of arg to node, a node added with AddArgNode
// whose argument type is A.
func SendArg[S, A any](node string, arg A) Send[S] {
	return Send[S]{Node: node, Item: argBox[A]{arg}}
}

// argBox keeps the static type of a SendArg argument: an interface or
// nil argument is still the node's type.
type argBox[A any] struct{ v A }

func (b argBox[A]) MarshalJSON() ([]byte, error) { return json.Marshal(b.v) }

func (argBox[A]) argType() reflect.Type { return reflect.TypeFor[A]() }

// sendArg is a SendArg argument.
type sendArg interface{ argType() reflect.Type }

// checkSend reports whether s fits its target n: a SendArg to an arg
// node of its type, a plain Send to any other node.
func checkSend[S any](n *node[S], s Send[S]) error {
	switch {
	case n.argType == nil && s.Item == nil:
		return nil
	case n.argType == nil:
		return fmt.Errorf("%w: graph.SendArg to node %q, which takes the state (add it with graph.AddArgNode)", ErrInvalidRoute, s.Node)
	case s.Item == nil:
		return fmt.Errorf("%w: a Send to node %q carries the state, but the node takes a %s (send it with graph.SendArg)", ErrInvalidRoute, s.Node, n.argType)
	}
	if _, raw := s.Item.(json.RawMessage); raw {
		return nil // restored from a checkpoint: decoded when the task runs
	}
	b, ok := s.Item.(sendArg)
	switch {
	case !ok:
		return fmt.Errorf("%w: a Send to node %q has an Item of type %T: make it with graph.SendArg", ErrInvalidRoute, s.Node, s.Item)
	case b.argType() != n.argType:
		return fmt.Errorf("%w: graph.SendArg to node %q carries a %s, but the node takes a %s", ErrInvalidRoute, s.Node, b.argType(), n.argType)
	}
	return nil
}
