package graph

import (
	"context"

	"github.com/stategraph/stategraph/state"
)

// Reserved node names: the entry and the exit of every graph.
const (
	Start = "__start__"
	End   = "__end__"
)

// Send asks for one run of a node with its own input: each Send is a task
// of the next step (LangGraph's Send). See state.Send.
type Send[S any] = state.Send[S]

// Route is a router's decision: the nodes (or labels of a path map) to run
// next, and Sends. An empty Route goes nowhere; End finishes the branch.
type Route[S any] struct {
	To    []string
	Sends []Send[S]
}

// Router decides where to go after a node. It reads the state as the
// node's own writes left it (without its siblings' writes of the same
// step). It must be deterministic: after a crash it is evaluated again.
type Router[S any] func(ctx context.Context, s S) (Route[S], error)

// Choose makes a Router from a function that returns one node name (or
// label, or End): the common case.
func Choose[S any](f func(ctx context.Context, s S) (string, error)) Router[S] {
	return func(ctx context.Context, s S) (Route[S], error) {
		to, err := f(ctx, s)
		if err != nil {
			return Route[S]{}, err
		}
		return Route[S]{To: []string{to}}, nil
	}
}

// FanOut makes a Router from a function that returns Sends: map-reduce.
func FanOut[S any](f func(ctx context.Context, s S) ([]Send[S], error)) Router[S] {
	return func(ctx context.Context, s S) (Route[S], error) {
		sends, err := f(ctx, s)
		return Route[S]{Sends: sends}, err
	}
}

// SendTo returns a Send of arg to node.
func SendTo[S any](node string, arg S) Send[S] { return Send[S]{Node: node, Arg: arg} }
