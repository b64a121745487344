// Package mermaidpath draws the path a thread took, from its checkpoints'
// metadata, as Mermaid text. The graph package (MermaidPath) and the
// inspector (stategraph mermaid) both draw with it, so the two pictures of
// a thread are the same.
package mermaidpath

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// The runtime's names of the start and end of a graph.
const (
	Start = "__start__"
	End   = "__end__"
)

// Draw draws a path, oldest checkpoint first: Start, one box per node per
// step that ran (loop and update checkpoints), then End when next is
// empty, or the next nodes, dashed.
func Draw(path []checkpoint.Metadata, next []string) string {
	var b strings.Builder
	b.WriteString("graph TD;\n")
	fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::first\n", Start, Start)
	prev := []string{Start}
	var edges []string
	lastStep := -1
	for _, md := range path {
		lastStep = md.Step
		if md.Source != checkpoint.SourceLoop && md.Source != checkpoint.SourceUpdate || len(md.Nodes) == 0 {
			continue
		}
		var cur []string
		for _, n := range md.Nodes {
			id := fmt.Sprintf("s%d_%s", md.Step, ID("", n))
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
		fmt.Fprintf(&b, "\t%s([<p>%s</p>]):::last\n", End, End)
		for _, p := range prev {
			edges = append(edges, fmt.Sprintf("\t%s --> %s;", p, End))
		}
	} else {
		step := lastStep + 1
		var pending []string
		for _, n := range next {
			id := fmt.Sprintf("s%d_%s", step, ID("", n))
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
