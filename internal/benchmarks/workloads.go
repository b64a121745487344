package benchmarks

import (
	"context"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Counter is the state of the workloads: a number that the chain's nodes
// add to and a list that the append loop grows.
type Counter struct {
	N     int
	Items []string
}

var (
	nField     = state.Value("n", func(s *Counter) *int { return &s.N })
	itemsField = state.Append("items", func(s *Counter) *[]string { return &s.Items })
	schema     = state.NewSchema(nField, itemsField)
)

// Chain compiles W1's graph: n nodes in a chain, each adding 1 to N. With
// a checkpointer it is W2 (memory) or W6 (a durable saver): one checkpoint
// per node.
func Chain(n int, opts ...graph.CompileOption) (*graph.Compiled[Counter], error) {
	g := graph.New(schema)
	prev := graph.Start
	for i := range n {
		name := fmt.Sprint("n", i)
		g.AddNode(name, func(ctx context.Context, s Counter) (state.Update[Counter], error) {
			return state.Writes(nField.Set(s.N + 1)), nil
		}).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

// AppendLoop compiles W3's graph: "execute" appends one string to Items,
// "route" passes, and a conditional edge loops back to "execute" until
// Items holds n strings. A run makes 2n steps, and 2n+2 checkpoints.
func AppendLoop(n int, opts ...graph.CompileOption) (*graph.Compiled[Counter], error) {
	g := graph.New(schema).
		AddNode("execute", func(ctx context.Context, s Counter) (state.Update[Counter], error) {
			return state.Writes(itemsField.Set([]string{"step result"})), nil
		}).
		AddNode("route", func(ctx context.Context, s Counter) (state.Update[Counter], error) {
			return state.Update[Counter]{}, nil
		}).
		AddEdge(graph.Start, "execute").AddEdge("execute", "route").
		AddConditionalEdges("route", graph.Choose(func(ctx context.Context, s Counter) (string, error) {
			if len(s.Items) < n {
				return "execute", nil
			}
			return graph.End, nil
		}), "execute", graph.End)
	return g.Compile(opts...)
}

// SlowChain compiles a chain of n nodes that each wait for wait (standing
// in for a model or tool call) and add 1 to N: with a durable saver, what
// DurabilityAsync overlaps.
func SlowChain(n int, wait time.Duration, opts ...graph.CompileOption) (*graph.Compiled[Counter], error) {
	g := graph.New(schema)
	prev := graph.Start
	for i := range n {
		name := fmt.Sprint("n", i)
		g.AddNode(name, func(ctx context.Context, s Counter) (state.Update[Counter], error) {
			time.Sleep(wait)
			return state.Writes(nField.Set(s.N + 1)), nil
		}).AddEdge(prev, name)
		prev = name
	}
	return g.Compile(opts...)
}

// FanOut compiles W4's graph: "fan" passes, then n branches run in one
// step, each appending its own name to Items, then "join" (a join of all
// branches) sets N to the number of items. A run makes 3 steps and ends
// with N = n.
func FanOut(n int, opts ...graph.CompileOption) (*graph.Compiled[Counter], error) {
	g := graph.New(schema).AddNode("fan", func(ctx context.Context, s Counter) (state.Update[Counter], error) {
		return state.Update[Counter]{}, nil
	}).AddEdge(graph.Start, "fan")
	branches := make([]string, 0, n)
	for i := range n {
		name := fmt.Sprint("b", i)
		branches = append(branches, name)
		g.AddNode(name, func(ctx context.Context, s Counter) (state.Update[Counter], error) {
			return state.Writes(itemsField.Set([]string{name})), nil
		}).AddEdge("fan", name)
	}
	g.AddNode("join", func(ctx context.Context, s Counter) (state.Update[Counter], error) {
		return state.Writes(nField.Set(len(s.Items))), nil
	}).AddJoin(branches, "join")
	return g.Compile(opts...)
}
