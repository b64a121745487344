package inspect

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// The runtime's names of the start and end of a graph.
const (
	startNode = "__start__"
	endNode   = "__end__"
)

// Path returns the checkpoints from the first of the thread to head,
// oldest first, by following Parent through history (any order): the
// branch head is on, even when the thread was forked.
func Path(history []*checkpoint.Tuple, head *checkpoint.Tuple) []*checkpoint.Tuple {
	byID := make(map[string]*checkpoint.Tuple, len(history))
	for _, t := range history {
		byID[t.Config.CheckpointID] = t
	}
	var chain []*checkpoint.Tuple
	seen := map[string]bool{}
	for t := head; t != nil && !seen[t.Config.CheckpointID]; {
		seen[t.Config.CheckpointID] = true
		chain = append(chain, t)
		if t.Parent == nil || t.Parent.CheckpointID == "" {
			break
		}
		t = byID[t.Parent.CheckpointID]
	}
	slices.Reverse(chain)
	return chain
}

// Mermaid draws a path (oldest first, as Path returns it) as a Mermaid
// flowchart, as graph.Compiled.MermaidPath does: Start, one box per node
// per step, then End when next is empty, or the next nodes, dashed.
func Mermaid(path []*checkpoint.Tuple, next []string) string {
	var b strings.Builder
	b.WriteString("graph TD;\n")
	fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::first\n", startNode, startNode)
	prev := []string{startNode}
	var edges []string
	lastStep := -1
	for _, t := range path {
		md := t.Metadata
		lastStep = md.Step
		if md.Source != checkpoint.SourceLoop && md.Source != checkpoint.SourceUpdate || len(md.Nodes) == 0 {
			continue
		}
		var cur []string
		for _, n := range md.Nodes {
			id := fmt.Sprintf("s%d_%s", md.Step, mermaidID(n))
			if slices.Contains(cur, id) {
				continue
			}
			label := fmt.Sprintf("%s · step %d", n, md.Step)
			if md.Source == checkpoint.SourceUpdate {
				label += " (update)"
			}
			fmt.Fprintf(&b, "\t%s[\"%s\"]\n", id, label)
			cur = append(cur, id)
		}
		for _, p := range prev {
			for _, q := range cur {
				edges = append(edges, fmt.Sprintf("\t%s --> %s;", p, q))
			}
		}
		prev = cur
	}
	if len(next) == 0 {
		fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::last\n", endNode, endNode)
		for _, p := range prev {
			edges = append(edges, fmt.Sprintf("\t%s --> %s;", p, endNode))
		}
	} else {
		step := lastStep + 1
		var pending []string
		for _, n := range next {
			id := fmt.Sprintf("s%d_%s", step, mermaidID(n))
			if !slices.Contains(pending, id) {
				fmt.Fprintf(&b, "\t%s[\"%s · step %d (pending)\"]:::pending\n", id, n, step)
				pending = append(pending, id)
			}
		}
		for _, p := range prev {
			for _, q := range pending {
				edges = append(edges, fmt.Sprintf("\t%s -.-> %s;", p, q))
			}
		}
	}
	for _, e := range edges {
		b.WriteString(e)
		b.WriteByte('\n')
	}
	b.WriteString("\tclassDef first fill-opacity:0\n")
	b.WriteString("\tclassDef last fill:#bfb6fc\n")
	b.WriteString("\tclassDef pending stroke-dasharray:5 5\n")
	return b.String()
}

// mermaidID escapes a node name into a Mermaid id, as the graph package
// does: letters, digits, '_' and '-' stay, anything else becomes \hex.
func mermaidID(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\%x", r)
		}
	}
	return b.String()
}
