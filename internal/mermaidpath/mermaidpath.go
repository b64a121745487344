// Package mermaidpath draws the path a thread took, from its checkpoints'
// metadata, as Mermaid text. The graph package (MermaidPath) and the
// inspector (stategraph mermaid) both draw with it, so the two pictures of
// a thread are the same.
package mermaidpath

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// The runtime's names of the start and end of a graph.
const (
	Start = "__start__"
	End   = "__end__"
)

// TriggersKey is the entry of a loop checkpoint's metadata (Extra) that
// says which of its step's tasks scheduled each task of the next step:
// a list with one item per next task, in task order, each a list of the
// task's node name followed by its triggers, a position in the
// checkpoint's Nodes (a number) or, for a join whose source ran in an
// earlier step, that source's node name (a string). A checkpoint without
// it had every task of the next step scheduled by every task of its own
// (or was written before the runtime recorded triggers).
const TriggersKey = "__triggers__"

// Trigger is one next task of a checkpoint and what scheduled it.
type Trigger struct {
	Node string
	// From are positions in the checkpoint's Nodes.
	From []int
	// Earlier are join sources that ran in an earlier step.
	Earlier []string
}

// Triggers reads md's TriggersKey entry; false when it has none or it
// does not parse (the path is then drawn without it).
func Triggers(md checkpoint.Metadata) ([]Trigger, bool) {
	raw, ok := md.Extra[TriggersKey]
	if !ok {
		return nil, false
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, false
	}
	out := make([]Trigger, 0, len(list))
	for _, item := range list {
		parts, ok := item.([]any)
		if !ok || len(parts) == 0 {
			return nil, false
		}
		name, ok := parts[0].(string)
		if !ok {
			return nil, false
		}
		t := Trigger{Node: name}
		for _, p := range parts[1:] {
			switch v := p.(type) {
			case string:
				t.Earlier = append(t.Earlier, v)
			default:
				i, ok := position(v)
				if !ok || i < 0 || i >= len(md.Nodes) {
					return nil, false
				}
				t.From = append(t.From, i)
			}
		}
		out = append(out, t)
	}
	return out, true
}

// position reads a position as a JSON round trip or the memory saver
// leaves it.
func position(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	case json.Number:
		i, err := strconv.Atoi(string(n))
		return i, err == nil
	}
	return 0, false
}

// drawing is a path being drawn: boxes, then edges.
type drawing struct {
	b      strings.Builder
	edges  []string
	lastOf map[string][]string // node → its boxes of the latest step it ran in
}

// box draws the box of the k-th task (0-based) of node n in a step, and
// returns its id. Tasks of one node in one step (Sends) are boxes of
// their own: the second is "n #2".
func (d *drawing) box(step int, n string, k int, suffix, class string) string {
	id := fmt.Sprintf("s%d_%s", step, ID("", n))
	label := n
	if k > 0 {
		// '|' is never in a node's name: the id is no other node's.
		id = fmt.Sprintf("s%d_%s", step, ID("", n+"|"+strconv.Itoa(k+1)))
		label = fmt.Sprintf("%s #%d", n, k+1)
	}
	fmt.Fprintf(&d.b, "\t%s[\"%s · step %d%s\"]%s\n", id, label, step, suffix, class)
	return id
}

// connect adds the edges into the boxes cur, from the boxes prev of the
// step before: those trig names when it matches cur's nodes (a join's
// source of an earlier step by its latest box), every one of prev
// otherwise.
func (d *drawing) connect(prev []string, trig []Trigger, names, cur []string, arrow string) {
	if trig != nil && !matches(trig, names) {
		trig = nil
	}
	if trig == nil {
		for _, p := range prev {
			for _, q := range cur {
				d.edges = append(d.edges, fmt.Sprintf("\t%s %s %s;", p, arrow, q))
			}
		}
		return
	}
	for j, q := range cur {
		var from []string
		for _, i := range trig[j].From {
			if i < len(prev) {
				from = append(from, prev[i])
			}
		}
		for _, n := range trig[j].Earlier {
			from = append(from, d.lastOf[n]...)
		}
		if len(from) == 0 {
			from = prev
		}
		for _, p := range from {
			d.edges = append(d.edges, fmt.Sprintf("\t%s %s %s;", p, arrow, q))
		}
	}
}

func matches(trig []Trigger, names []string) bool {
	if len(trig) != len(names) {
		return false
	}
	for i, t := range trig {
		if t.Node != names[i] {
			return false
		}
	}
	return true
}

// Draw draws a path, oldest checkpoint first: Start, one box per task of
// each step that ran (loop and update checkpoints), then End when next is
// empty, or the next tasks, dashed. A step's tasks are joined to the
// tasks that scheduled them (TriggersKey), so a fan-out and a join show as
// such; a checkpoint that does not say joins every task of its step to
// every task of the next.
func Draw(path []checkpoint.Metadata, next []string) string {
	d := &drawing{lastOf: map[string][]string{}}
	d.b.WriteString("graph TD;\n")
	fmt.Fprintf(&d.b, "\t%s([<p>%s</p>]):::first\n", Start, Start)
	prev := []string{Start}
	var trig []Trigger // of the last checkpoint drawn, for the step after it
	lastStep := -1
	for _, md := range path {
		step := lastStep
		lastStep = md.Step
		if md.Source != checkpoint.SourceLoop && md.Source != checkpoint.SourceUpdate || len(md.Nodes) == 0 {
			if md.Source != checkpoint.SourceFork {
				// An input or a start: what runs next follows it, not the
				// last drawn step's record.
				trig = nil
			}
			if md.Source == checkpoint.SourceLoop {
				trig, _ = Triggers(md)
			}
			continue
		}
		if md.Source != checkpoint.SourceLoop || md.Step != step+1 {
			trig = nil
		}
		suffix := ""
		if md.Source == checkpoint.SourceUpdate {
			suffix = " (update)"
		}
		cur := d.boxes(md.Step, md.Nodes, suffix, "")
		d.connect(prev, trig, md.Nodes, cur, "-->")
		ran := map[string][]string{}
		for i, n := range md.Nodes {
			ran[n] = append(ran[n], cur[i])
		}
		maps.Copy(d.lastOf, ran)
		prev = cur
		trig = nil
		if md.Source == checkpoint.SourceLoop {
			trig, _ = Triggers(md)
		}
	}
	if len(next) == 0 {
		fmt.Fprintf(&d.b, "\t%s([<p>%s</p>]):::last\n", End, End)
		for _, p := range prev {
			d.edges = append(d.edges, fmt.Sprintf("\t%s --> %s;", p, End))
		}
	} else {
		pending := d.boxes(lastStep+1, next, " (pending)", ":::pending")
		d.connect(prev, pendingTriggers(trig, next), next, pending, "-.->")
	}
	for _, e := range d.edges {
		d.b.WriteString(e)
		d.b.WriteByte('\n')
	}
	d.b.WriteString("\tclassDef first fill-opacity:0\n")
	d.b.WriteString("\tclassDef last fill:#bfb6fc\n")
	d.b.WriteString("\tclassDef pending stroke-dasharray:5 5\n")
	return d.b.String()
}

// boxes draws a box per task of a step and returns their ids.
func (d *drawing) boxes(step int, nodes []string, suffix, class string) []string {
	seen := map[string]int{}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = d.box(step, n, seen[n], suffix, class)
		seen[n]++
	}
	return ids
}

// pendingTriggers returns the triggers of the tasks next names: the
// pending step's tasks that have not finished, a subsequence of the
// tasks trig describes.
func pendingTriggers(trig []Trigger, next []string) []Trigger {
	if trig == nil {
		return nil
	}
	out := make([]Trigger, 0, len(next))
	k := 0
	for _, n := range next {
		for k < len(trig) && trig[k].Node != n {
			k++
		}
		if k == len(trig) {
			return nil
		}
		out = append(out, trig[k])
		k++
	}
	return out
}

// ID makes a node id Mermaid accepts, prefixed with its subgraph's path
// ("sub:inner"): letters, digits, '_' and '-' are kept; anything else
// (the ':' between a subgraph and its nodes) is escaped as \hex, as
// LangGraph does.
func ID(prefix, name string) string {
	id := name
	if prefix != "" {
		id = prefix + ":" + name
	}
	var b strings.Builder
	for _, r := range id {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\%x", r)
		}
	}
	return b.String()
}
