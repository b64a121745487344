package graph

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store"
)

// Compiled is a validated graph, ready to run. It is safe for concurrent
// use: runs on different threads proceed in parallel; runs on the same
// thread are serialized (see WaitForThread).
type Compiled[S any] struct {
	name            string
	schema          *state.Schema[S]
	nodes           map[string]*node[S]
	order           []string            // node names as added
	static          map[string][]string // src → dsts (End dropped), in declaration order
	branches        map[string][]*branch[S]
	joins           []join
	joinsOf         map[string][]int // src → joins it belongs to
	start           wiring[S]        // what follows Start
	edges           []edge           // as declared, for drawing
	saver           checkpoint.Saver
	ser             checkpoint.Serializer
	interruptBefore map[string]bool
	interruptAfter  map[string]bool
	durability      Durability
	leaseTTL        time.Duration // of the run's lease (WithLease)
	threads         threadLocks
	pool            sync.Pool // *buffers[S]
	cache           stateCache[S]
	hasReduced      bool // the schema has a merge or custom field
	hasDeferred     bool // a node is deferred (WithDefer)
	strictAnswers   bool // WithStrictAnswers
	store           *store.Store
	recursionLimit  int // a call's default (WithDefaultRecursionLimit)
	observer        Observer
	nodeCache       Cache // WithNodeCache
	// alwaysInBackground and now: see compileOptions.
	alwaysInBackground bool
	now                func() time.Time
}

// Compile validates the graph and returns it ready to run. Every problem
// is reported, each naming its culprit, joined under ErrInvalidGraph.
func (g *StateGraph[S]) Compile(opts ...CompileOption) (*Compiled[S], error) {
	var o compileOptions
	for _, opt := range opts {
		opt(&o)
	}
	errs := slices.Clone(g.errs)
	if g.schema == nil {
		errs = append(errs, errors.New("the graph has no schema (graph.New(nil))"))
	} else if err := g.schema.Err(); err != nil {
		errs = append(errs, err)
	}
	known := func(name string) bool { return name == End || g.nodes[name] != nil }
	for _, e := range g.edges {
		if e.src != Start && g.nodes[e.src] == nil {
			errs = append(errs, fmt.Errorf("edge %q -> %q: unknown source node %q", e.src, e.dst, e.src))
		}
		if !known(e.dst) {
			errs = append(errs, fmt.Errorf("edge %q -> %q: unknown target node %q", e.src, e.dst, e.dst))
		}
	}
	for _, j := range g.joins {
		for _, s := range j.srcs {
			if s == Start || s == End || g.nodes[s] == nil {
				errs = append(errs, fmt.Errorf("join %v -> %q: unknown source node %q", j.srcs, j.dst, s))
			}
		}
		if !known(j.dst) {
			errs = append(errs, fmt.Errorf("join %v -> %q: unknown target node %q", j.srcs, j.dst, j.dst))
		}
	}
	for _, b := range g.branches {
		if b.src != Start && g.nodes[b.src] == nil {
			errs = append(errs, fmt.Errorf("conditional edges from %q: unknown source node %q", b.src, b.src))
		}
		for _, t := range b.targets {
			if !known(t) {
				errs = append(errs, fmt.Errorf("conditional edges from %q: unknown target node %q", b.src, t))
			}
		}
	}
	for _, name := range g.order {
		if g.nodes[name].cache != nil && o.nodeCache == nil {
			errs = append(errs, fmt.Errorf("node %q has a cache policy (graph.WithCache) but the graph has no cache: compile it with graph.WithNodeCache", name))
		}
		for _, d := range g.nodes[name].destinations {
			if !known(d) {
				errs = append(errs, fmt.Errorf("node %q: unknown destination %q", name, d))
			}
		}
	}
	for _, list := range [][]string{o.interruptBefore, o.interruptAfter} {
		for _, n := range list {
			if g.nodes[n] == nil {
				errs = append(errs, fmt.Errorf("interrupt at unknown node %q", n))
			}
		}
	}
	c := &Compiled[S]{
		name:               o.name,
		schema:             g.schema,
		nodes:              make(map[string]*node[S], len(g.nodes)),
		order:              slices.Clone(g.order),
		static:             map[string][]string{},
		branches:           map[string][]*branch[S]{},
		joins:              slices.Clone(g.joins),
		joinsOf:            map[string][]int{},
		edges:              slices.Clone(g.edges),
		saver:              o.saver,
		ser:                o.serializer,
		interruptBefore:    setOf(o.interruptBefore),
		interruptAfter:     setOf(o.interruptAfter),
		durability:         o.durability,
		leaseTTL:           o.leaseTTL,
		store:              o.store,
		recursionLimit:     o.recursionLimit,
		observer:           o.observer,
		nodeCache:          o.nodeCache,
		strictAnswers:      o.strictAnswers,
		alwaysInBackground: o.alwaysInBackground,
		now:                o.now,
	}
	if c.recursionLimit <= 0 {
		c.recursionLimit = DefaultRecursionLimit
	}
	if c.leaseTTL <= 0 {
		c.leaseTTL = DefaultLeaseTTL
	}
	if c.now == nil {
		c.now = time.Now
	}
	for i := range c.schema.Len() {
		c.hasReduced = c.hasReduced || isReduced(c.schema.Kind(i))
	}
	if c.ser == nil {
		c.ser = checkpoint.JSON
	}
	for i, name := range sortedKeys(g.nodes) {
		cp := *g.nodes[name]
		cp.ord = i // tasks run and apply in name order
		c.nodes[name] = &cp
		c.hasDeferred = c.hasDeferred || cp.deferred
	}
	for _, e := range g.edges {
		if e.dst != End && !slices.Contains(c.static[e.src], e.dst) {
			c.static[e.src] = append(c.static[e.src], e.dst)
		}
	}
	for _, b := range g.branches {
		c.branches[b.src] = append(c.branches[b.src], b)
	}
	for i, j := range c.joins {
		for _, s := range j.srcs {
			c.joinsOf[s] = append(c.joinsOf[s], i)
		}
	}
	for name, n := range c.nodes {
		n.wire = c.wiringOf(name)
	}
	c.start = c.wiringOf(Start)
	if len(c.static[Start]) == 0 && len(c.branches[Start]) == 0 {
		errs = append(errs, errors.New("the graph has no entry point: add an edge from graph.Start"))
	} else if len(errs) == 0 {
		for _, name := range c.unreachable() {
			errs = append(errs, fmt.Errorf("node %q is unreachable from graph.Start (a node that reaches it by Goto or Send declares it with graph.WithDestinations)", name))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w:\n%w", ErrInvalidGraph, errors.Join(errs...))
	}
	return c, nil
}

// unreachable lists the nodes no path from Start reaches, through edges,
// router targets, joins (once all their sources are reached) and declared
// destinations.
func (c *Compiled[S]) unreachable() []string {
	seen := map[string]bool{Start: true}
	queue := []string{Start}
	visit := func(n string) {
		if n != End && !seen[n] {
			seen[n] = true
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range c.static[n] {
			visit(d)
		}
		for _, b := range c.branches[n] {
			for _, t := range b.targets {
				visit(t)
			}
		}
		if nd := c.nodes[n]; nd != nil {
			for _, d := range nd.destinations {
				visit(d)
			}
		}
		for _, j := range c.joins {
			all := true
			for _, s := range j.srcs {
				all = all && seen[s]
			}
			if all {
				visit(j.dst)
			}
		}
	}
	var out []string
	for _, n := range c.order {
		if !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// wiring is what follows a node: its edges, routers and joins.
type wiring[S any] struct {
	static   []*node[S]
	branches []*branch[S]
	joins    []joinSlot // the joins the node is a source of
	// gotos are where the node may goto or send: its WithDestinations and
	// its edges' targets; nil when it declared none (anywhere).
	gotos []string
}

// joinSlot is a node's place among a join's sources.
type joinSlot struct{ join, src int }

func (c *Compiled[S]) wiringOf(name string) wiring[S] {
	w := wiring[S]{branches: c.branches[name]}
	for _, ji := range c.joinsOf[name] {
		for k, src := range c.joins[ji].srcs {
			if src == name {
				w.joins = append(w.joins, joinSlot{join: ji, src: k})
			}
		}
	}
	for _, d := range c.static[name] {
		w.static = append(w.static, c.nodes[d])
	}
	// In rank order, so that a step scheduled by one node's edges (a
	// fan-out) needs no sort (buildTasks).
	slices.SortFunc(w.static, func(a, b *node[S]) int { return a.ord - b.ord })
	if n := c.nodes[name]; n != nil && len(n.destinations) > 0 {
		w.gotos = slices.Clone(n.destinations)
		w.gotos = append(w.gotos, c.static[name]...)
		for _, b := range w.branches {
			w.gotos = append(w.gotos, b.targets...)
			for _, d := range b.pathMap {
				w.gotos = append(w.gotos, d)
			}
		}
	}
	return w
}

// wireOf returns what follows the named node (or Start).
func (c *Compiled[S]) wireOf(name string) *wiring[S] {
	if n := c.nodes[name]; n != nil {
		return &n.wire
	}
	if name == Start {
		return &c.start
	}
	return &wiring[S]{}
}

// Schema returns the graph's state schema.
func (c *Compiled[S]) Schema() *state.Schema[S] { return c.schema }

// Checkpointer returns the graph's saver, or nil.
func (c *Compiled[S]) Checkpointer() checkpoint.Saver { return c.saver }

// Nodes returns the node names in the order they were added.
func (c *Compiled[S]) Nodes() []string { return slices.Clone(c.order) }

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// threadLocks keeps one run per thread within the process.
type threadLocks struct {
	mu   sync.Mutex
	busy map[string]*threadHold
}

// threadHold is a run's hold on a thread in this process.
type threadHold struct {
	done   chan struct{} // closed when released
	holder string
	since  time.Time
}

// acquire takes the thread for holder, waiting if wait is set; it returns
// the release func, or a busy error (which is also an ErrConflict).
func (l *threadLocks) acquire(ctx context.Context, thread, holder string, wait bool) (func(), error) {
	for {
		l.mu.Lock()
		if l.busy == nil {
			l.busy = map[string]*threadHold{}
		}
		h, held := l.busy[thread]
		if !held {
			h = &threadHold{done: make(chan struct{}), holder: holder, since: time.Now()}
			l.busy[thread] = h
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				delete(l.busy, thread)
				l.mu.Unlock()
				close(h.done)
			}, nil
		}
		l.mu.Unlock()
		if !wait {
			return nil, &busyError{b: &checkpoint.BusyError{LeaseInfo: checkpoint.LeaseInfo{Thread: thread, Holder: h.holder + " (in this process)", Since: h.since}}}
		}
		select {
		case <-h.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("graph: waiting for thread %q: %w", thread, ctx.Err())
		}
	}
}
