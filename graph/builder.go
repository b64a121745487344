package graph

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/stategraph/stategraph/state"
)

// NodeFunc is a node: it reads the state (by value; slices and maps inside
// it are shared and must not be modified) and returns the writes to apply
// at the end of the step, optionally with where to go next.
type NodeFunc[S any] func(ctx context.Context, s S) (state.Update[S], error)

// StateGraph builds a graph over the state S. Add nodes and edges, then
// Compile. Mistakes are collected and reported by Compile, each naming its
// culprit, so the building calls can be chained.
type StateGraph[S any] struct {
	schema   *state.Schema[S]
	nodes    map[string]*node[S]
	order    []string // node names in the order they were added
	edges    []edge
	joins    []join
	branches []*branch[S]
	errs     []error
}

type node[S any] struct {
	name         string
	fn           NodeFunc[S]
	retry        []RetryPolicy
	timeout      time.Duration
	destinations []string        // declared goto/Send targets, for validation and drawing
	cache        *CachePolicy[S] // WithCache
	deferred     bool            // WithDefer
	argType      reflect.Type    // AddArgNode: the type of the argument SendArg gives it
	sub          subgraph        // set when the node is a compiled graph
	wire         wiring[S]       // set by Compile
	ord          int             // rank of the name among the graph's nodes, set by Compile
}

type edge struct{ src, dst string }

type join struct {
	srcs []string
	dst  string
}

type branch[S any] struct {
	src     string
	router  Router[S]
	targets []string          // node names (or End), in declaration order
	pathMap map[string]string // label → node; nil when routes are node names
}

// New starts a graph over the schema's state.
func New[S any](schema *state.Schema[S]) *StateGraph[S] {
	return &StateGraph[S]{schema: schema, nodes: map[string]*node[S]{}}
}

func (g *StateGraph[S]) errorf(format string, args ...any) {
	g.errs = append(g.errs, fmt.Errorf(format, args...))
}

// NodeOption configures a node.
type NodeOption func(*nodeOptions)

type nodeOptions struct {
	retry        []RetryPolicy
	timeout      time.Duration
	destinations []string
	cache        any // a *CachePolicy[S] (WithCache)
	deferred     bool
}

// WithRetry retries the node's failures under the policy. Given several
// times (or with several policies), the node has several policies, as
// LangGraph's retry_policy=[…]: a failure is retried under the first whose
// RetryOn matches it (a policy without RetryOn matches every error a
// retry may take), with the attempts counted across all of them; an error
// no policy matches fails the node at once.
func WithRetry(policies ...RetryPolicy) NodeOption {
	return func(o *nodeOptions) { o.retry = append(o.retry, policies...) }
}

// WithTimeout bounds each attempt of the node; an attempt that runs longer
// fails with ErrNodeTimeout (and is retried if the policy says so).
func WithTimeout(d time.Duration) NodeOption { return func(o *nodeOptions) { o.timeout = d } }

// WithDestinations declares the nodes this node may go to through its
// Update's Goto or Sends, so that Compile can check reachability and
// Mermaid can draw them. Once declared, a Goto or Send to a node neither
// declared nor a target of the node's edges (End is always allowed) fails
// the step with a *RouteError (ErrInvalidRoute), as a router's undeclared
// target does.
func WithDestinations(nodes ...string) NodeOption {
	return func(o *nodeOptions) { o.destinations = append(o.destinations, nodes...) }
}

// WithDefer makes the node deferred (LangGraph's defer=True): scheduled
// by an edge, a join, a router or a goto, it waits while any other node or
// Send of the run is pending, and runs once, in the first step that would
// otherwise have nothing to run. Scheduled again while it waits, it still
// runs once. A deferred node joins branches of uneven lengths, as in a
// map-reduce whose mappers take different numbers of steps, without a
// join listing every branch's last node. A Send to a deferred node runs
// at once, as a Send does in LangGraph.
func WithDefer() NodeOption { return func(o *nodeOptions) { o.deferred = true } }

// AddNode adds a node.
func (g *StateGraph[S]) AddNode(name string, fn NodeFunc[S], opts ...NodeOption) *StateGraph[S] {
	var o nodeOptions
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case name == Start || name == End:
		g.errorf("node name %q is reserved", name)
		return g
	case !validNodeName(name):
		g.errorf("node name %q is invalid: use a non-empty name without ':', '|' or control characters, not starting with \"__\"", name)
		return g
	case g.nodes[name] != nil:
		g.errorf("node %q is added twice", name)
		return g
	case fn == nil:
		g.errorf("node %q has a nil function", name)
		return g
	}
	var cache *CachePolicy[S]
	if o.cache != nil {
		p, ok := o.cache.(*CachePolicy[S])
		if !ok {
			g.errorf("node %q: the cache policy is a %T, not a CachePolicy of the graph's state %T", name, o.cache, *new(S))
			return g
		}
		cache = p
	}
	g.nodes[name] = &node[S]{name: name, fn: fn, retry: o.retry, timeout: o.timeout, destinations: o.destinations, cache: cache, deferred: o.deferred}
	g.order = append(g.order, name)
	return g
}

// AddSubgraph adds a compiled graph over the same state as a node. It runs
// with the parent's state as its input; its update sets the fields it
// changed (appending what it appended to append fields, adding what it
// added to sum fields). With a checkpointer, its checkpoints live in its
// own namespace of the parent's thread.
func (g *StateGraph[S]) AddSubgraph(name string, sub *Compiled[S], opts ...NodeOption) *StateGraph[S] {
	if sub == nil {
		g.errorf("subgraph %q is nil", name)
		return g
	}
	g.AddNode(name, sub.asNode(name), opts...)
	if n := g.nodes[name]; n != nil && n.sub == nil {
		n.sub = sub
	}
	return g
}

func validNodeName(name string) bool {
	if name == "" || len(name) >= 2 && name[:2] == "__" || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r == ':' || r == '|' || r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// AddEdge runs dst after src. Start as src makes dst an entry point; End
// as dst finishes the branch.
func (g *StateGraph[S]) AddEdge(src, dst string) *StateGraph[S] {
	switch {
	case src == End:
		g.errorf("edge %q -> %q: End has no outgoing edges", src, dst)
	case dst == Start:
		g.errorf("edge %q -> %q: Start has no incoming edges", src, dst)
	default:
		g.edges = append(g.edges, edge{src, dst})
	}
	return g
}

// AddJoin runs dst once after every one of srcs has finished, whether they
// ran in the same step or in different ones (LangGraph's add_edge with a
// list of sources).
func (g *StateGraph[S]) AddJoin(srcs []string, dst string) *StateGraph[S] {
	switch {
	case len(srcs) == 0:
		g.errorf("join into %q has no sources", dst)
	case len(srcs) == 1:
		return g.AddEdge(srcs[0], dst)
	case dst == Start:
		g.errorf("join into %q: Start has no incoming edges", dst)
	default:
		g.joins = append(g.joins, join{srcs: append([]string(nil), srcs...), dst: dst})
	}
	return g
}

// AddConditionalEdges routes after src with a router whose possible
// targets (node names, or End) are declared, so the graph can be checked
// and drawn exactly. A route outside targets fails the run naming src.
func (g *StateGraph[S]) AddConditionalEdges(src string, router Router[S], targets ...string) *StateGraph[S] {
	if g.checkBranch(src, router, len(targets)) {
		g.branches = append(g.branches, &branch[S]{src: src, router: router, targets: append([]string(nil), targets...)})
	}
	return g
}

// AddConditionalEdgesMap routes after src with a router that returns
// labels, mapped to nodes by pathMap (LangGraph's path_map). Mermaid
// draws a label beside its edge when it differs from the node's name.
func (g *StateGraph[S]) AddConditionalEdgesMap(src string, router Router[S], pathMap map[string]string) *StateGraph[S] {
	if g.checkBranch(src, router, len(pathMap)) {
		pm := make(map[string]string, len(pathMap))
		var targets []string
		for _, label := range sortedKeys(pathMap) {
			pm[label] = pathMap[label]
			targets = appendUnique(targets, pathMap[label])
		}
		g.branches = append(g.branches, &branch[S]{src: src, router: router, targets: targets, pathMap: pm})
	}
	return g
}

func (g *StateGraph[S]) checkBranch(src string, router Router[S], n int) bool {
	switch {
	case src == End:
		g.errorf("conditional edges from %q: End has no outgoing edges", src)
	case router == nil:
		g.errorf("conditional edges from %q: the router is nil", src)
	case n == 0:
		g.errorf("conditional edges from %q: declare the router's possible targets", src)
	default:
		return true
	}
	return false
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
