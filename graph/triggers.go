package graph

import (
	"maps"
	"slices"

	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// A run with a checkpointer records which of a step's tasks scheduled each
// task of the next step, so that MermaidPath (and the inspector) draw a
// fan-out as edges from the task that forked to each of the tasks it
// started, and a join as edges from each of its sources, rather than
// every task of a step joined to every task of the next. The record goes
// into the step's loop checkpoint, under mermaidpath.TriggersKey of its
// metadata's Extra, only when it says more than "every task of this step
// scheduled every task of the next" (a step with one task, the common
// case, stores nothing).

// triggerLog is what the routing of one step scheduled, and from which
// task.
type triggerLog struct {
	on    bool       // the run records triggers (it has a checkpointer)
	cur   int        // the position, among the step's tasks, of the task being routed
	nodes []trigNode // nodes scheduled by edges, routers and gotos, by task
	sends []int      // per Send of the next step, the task that sent it
	joins []int      // the joins the step completed
}

type trigNode struct{ from, ord int }

// reset starts the record of a step's routing.
func (l *triggerLog) reset() {
	l.cur = -1
	l.nodes, l.sends, l.joins = l.nodes[:0], l.sends[:0], l.joins[:0]
}

// schedule schedules n, from the task being routed.
func (r *run[S]) schedule(n *node[S]) {
	r.next.add(n)
	if r.trig.on {
		r.trig.nodes = append(r.trig.nodes, trigNode{from: r.trig.cur, ord: n.ord})
	}
}

// sendFrom records that the Send just scheduled came from the task being
// routed.
func (r *run[S]) sendFrom() {
	if r.trig.on {
		r.trig.sends = append(r.trig.sends, r.trig.cur)
	}
}

// triggers returns the record of the step's routing for its checkpoint's
// metadata: one entry per task of the next step, in task order, each the
// task's node name followed by what scheduled it: positions of this step's
// tasks (among Metadata.Nodes), and, for a join whose source ran in an
// earlier step, that source's name. It returns nil when every task of
// the next step was scheduled by every task of this one.
func (r *run[S]) triggers() []any {
	l := &r.trig
	if !l.on {
		return nil
	}
	first := 0 // Metadata.Nodes leaves the Start task out
	if len(r.tasks) > 0 && r.tasks[0].name == Start {
		first = 1
	}
	ran := len(r.tasks) - first
	if ran <= 1 && len(l.joins) == 0 {
		return nil
	}
	nodes := slices.Clone(r.next.nodes)
	if r.c.hasDeferred && r.next.holdsDeferred() { // deferred nodes wait: not tasks of the next step
		nodes = slices.DeleteFunc(nodes, func(n *node[S]) bool { return n.deferred })
	}
	slices.SortFunc(nodes, func(a, b *node[S]) int { return a.ord - b.ord })
	out := make([]any, 0, len(nodes)+len(r.next.sends))
	trivial := true
	add := func(name string, from []any) {
		if len(from) != ran {
			trivial = false
		}
		for _, f := range from {
			if _, ok := f.(string); ok {
				trivial = false
			}
		}
		out = append(out, append([]any{name}, from...))
	}
	for _, n := range nodes {
		var from []any
		seen := make([]bool, ran)
		mark := func(i int) {
			if i -= first; i >= 0 && i < ran && !seen[i] {
				seen[i] = true
			}
		}
		for _, tn := range l.nodes {
			if tn.ord == n.ord {
				mark(tn.from)
			}
		}
		var earlier []any
		for _, ji := range l.joins {
			j := r.c.joins[ji]
			if j.dst != n.name {
				continue
			}
			for _, src := range j.srcs {
				found := false
				for i, t := range r.tasks {
					if t.name == src {
						mark(i)
						found = true
					}
				}
				if !found && !slices.Contains(earlier, any(src)) {
					earlier = append(earlier, src)
				}
			}
		}
		for i, ok := range seen {
			if ok {
				from = append(from, i)
			}
		}
		add(n.name, append(from, earlier...))
	}
	for k, s := range r.next.sends {
		var from []any
		if k < len(l.sends) && l.sends[k]-first >= 0 {
			from = []any{l.sends[k] - first}
		}
		add(s.Node, from)
	}
	if trivial {
		return nil
	}
	return out
}

// withTriggers returns extra with the triggers added, in a copy.
func withTriggers(extra map[string]any, trig []any) map[string]any {
	if trig == nil {
		return extra
	}
	out := make(map[string]any, len(extra)+1)
	maps.Copy(out, extra)
	out[mermaidpath.TriggersKey] = trig
	return out
}
