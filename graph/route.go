package graph

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

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

// addName schedules the named node; End and unknown names are ignored
// (routes are checked before they get here).
func (r *run[S]) addName(name string) {
	if n := r.c.nodes[name]; n != nil {
		r.schedule(n)
	}
}

// route schedules what follows task t: its node's static edges, routers,
// gotos and Sends, and its part in joins.
func (r *run[S]) route(t *task[S], view *S) error {
	w := t.wire
	for _, d := range w.static {
		r.schedule(d)
	}
	for _, b := range w.branches {
		route, err := callRouter(r.ctx, b.router, *view)
		if err != nil {
			return &RouteError{Node: t.name, Step: r.step, Err: err}
		}
		for _, to := range route.To {
			dst := to
			if b.pathMap != nil {
				d, ok := b.pathMap[to]
				if !ok {
					return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router returned label %q, which is not in its path map (labels: %v)", ErrInvalidRoute, to, sortedKeys(b.pathMap))}
				}
				dst = d
			} else if !slices.Contains(b.targets, to) {
				return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router returned %q, which is not among its declared targets %v", ErrInvalidRoute, to, b.targets)}
			}
			r.addName(dst)
		}
		for _, s := range route.Sends {
			if !slices.Contains(b.targets, s.Node) || s.Node == End {
				return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: router sent to %q, which is not among its declared targets %v", ErrInvalidRoute, s.Node, b.targets)}
			}
			if err := checkSend(r.c.nodes[s.Node], s); err != nil {
				return &RouteError{Node: t.name, Step: r.step, Err: err}
			}
			r.next.sends = append(r.next.sends, s)
			r.sendFrom()
		}
	}
	declared := w.gotos // nil: the node declared no destinations, any node goes
	for _, to := range t.update.Goto {
		if to != End && r.c.nodes[to] == nil {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: goto unknown node %q", ErrInvalidRoute, to)}
		}
		if to != End && len(declared) > 0 && !slices.Contains(declared, to) {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: goto %q, which is not among the node's declared destinations %v (graph.WithDestinations)", ErrInvalidRoute, to, declared)}
		}
		r.addName(to)
	}
	for _, s := range t.update.Sends {
		if r.c.nodes[s.Node] == nil {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: send to unknown node %q", ErrInvalidRoute, s.Node)}
		}
		if len(declared) > 0 && !slices.Contains(declared, s.Node) {
			return &RouteError{Node: t.name, Step: r.step, Err: fmt.Errorf("%w: send to %q, which is not among the node's declared destinations %v (graph.WithDestinations)", ErrInvalidRoute, s.Node, declared)}
		}
		if err := checkSend(r.c.nodes[s.Node], s); err != nil {
			return &RouteError{Node: t.name, Step: r.step, Err: err}
		}
		r.next.sends = append(r.next.sends, s)
		r.sendFrom()
	}
	for _, j := range w.joins {
		r.next.joins[j.join][j.src] = true
	}
	return nil
}

// finishJoins schedules each join whose sources have all finished.
func (r *run[S]) finishJoins() {
	for ji, seen := range r.next.joins {
		all := true
		for _, s := range seen {
			all = all && s
		}
		if all {
			if n := r.c.nodes[r.c.joins[ji].dst]; n != nil {
				r.next.add(n)
			}
			if r.trig.on {
				r.trig.joins = append(r.trig.joins, ji)
			}
			clear(seen)
		}
	}
}

// callRouter runs a router, turning a panic into an error.
func callRouter[S any](ctx context.Context, router Router[S], s S) (route Route[S], err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("router panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return router(ctx, s)
}
