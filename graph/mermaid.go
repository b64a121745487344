package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// MermaidOption configures Mermaid.
type MermaidOption func(*mermaidOptions)

type mermaidOptions struct {
	styles      bool
	frontMatter bool
	curve       string
	nodeStyles  map[string]string
}

// MermaidStyles adds node declarations and LangGraph's default classes
// (start and end drawn as stadiums, nodes filled).
func MermaidStyles() MermaidOption { return func(o *mermaidOptions) { o.styles = true } }

// MermaidFrontMatter adds a front matter block setting the flowchart's
// curve ("linear" when empty), as LangGraph does.
func MermaidFrontMatter(curve string) MermaidOption {
	return func(o *mermaidOptions) {
		o.frontMatter = true
		o.curve = curve
	}
}

// MermaidNodeStyle adds a `style` line for a node, e.g.
// MermaidNodeStyle("agent", "fill:#fde68a").
func MermaidNodeStyle(node, style string) MermaidOption {
	return func(o *mermaidOptions) {
		if o.nodeStyles == nil {
			o.nodeStyles = map[string]string{}
		}
		o.nodeStyles[node] = style
	}
}

// Mermaid draws the graph as Mermaid flowchart text in LangGraph's
// draw_mermaid format: "graph TD;", then one tab-indented line per edge,
// "-->" for plain edges and "-.->" for conditional ones (routers and
// declared goto destinations), a route's label beside its edge when it
// differs from the target. Lines are sorted, so diagrams diff cleanly.
// Subgraphs are drawn as subgraph blocks. No network is used.
func (c *Compiled[S]) Mermaid(opts ...MermaidOption) string {
	var o mermaidOptions
	for _, opt := range opts {
		opt(&o)
	}
	var b strings.Builder
	if o.frontMatter {
		curve := o.curve
		if curve == "" {
			curve = "linear"
		}
		fmt.Fprintf(&b, "---\nconfig:\n  flowchart:\n    curve: %s\n---\n", curve)
	}
	b.WriteString("graph TD;\n")
	for _, line := range c.mermaidBody("", "\t", o.styles) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	for _, n := range sortedKeys(o.nodeStyles) {
		fmt.Fprintf(&b, "\tstyle %s %s\n", mermaidID("", n), o.nodeStyles[n])
	}
	if o.styles {
		b.WriteString("\tclassDef default fill:#f2f0ff,line-height:1.2\n")
		b.WriteString("\tclassDef first fill-opacity:0\n")
		b.WriteString("\tclassDef last fill:#bfb6fc\n")
	}
	return b.String()
}

type mermaidEdge struct {
	src, dst, label string
	conditional     bool
}

// mermaidBody returns the node and edge lines of the graph, its ids
// prefixed for drawing inside a parent.
func (c *Compiled[S]) mermaidBody(prefix, indent string, styles bool) []string {
	var lines []string
	if styles {
		lines = append(lines, fmt.Sprintf("%s%s([<p>%s</p>]):::first", indent, mermaidID(prefix, Start), Start))
		for _, n := range c.order {
			if c.nodes[n].sub == nil {
				lines = append(lines, fmt.Sprintf("%s%s(%s)", indent, mermaidID(prefix, n), n))
			}
		}
		lines = append(lines, fmt.Sprintf("%s%s([<p>%s</p>]):::last", indent, mermaidID(prefix, End), End))
	} else if prefix != "" {
		// A subgraph's node ids are escaped paths (sub\3ax): each is
		// declared with its name, so that it reads as the name.
		lines = append(lines, fmt.Sprintf("%s%s(%s)", indent, mermaidID(prefix, Start), Start))
		for _, n := range c.order {
			if c.nodes[n].sub == nil {
				lines = append(lines, fmt.Sprintf("%s%s(%s)", indent, mermaidID(prefix, n), n))
			}
		}
		lines = append(lines, fmt.Sprintf("%s%s(%s)", indent, mermaidID(prefix, End), End))
	}
	for _, n := range c.order {
		if sub := c.nodes[n].sub; sub != nil {
			lines = append(lines, fmt.Sprintf("%ssubgraph %s", indent, mermaidID(prefix, n)))
			lines = append(lines, sub.mermaidBody(joinPrefix(prefix, n), indent+"\t", styles)...)
			lines = append(lines, indent+"end")
		}
	}
	var edges []mermaidEdge
	for _, e := range c.edges {
		edges = append(edges, mermaidEdge{src: e.src, dst: e.dst})
	}
	for _, j := range c.joins {
		for _, s := range j.srcs {
			edges = append(edges, mermaidEdge{src: s, dst: j.dst})
		}
	}
	for _, src := range sortedKeys(c.branches) {
		for _, br := range c.branches[src] {
			if br.pathMap == nil {
				for _, t := range br.targets {
					edges = append(edges, mermaidEdge{src: src, dst: t, conditional: true})
				}
				continue
			}
			for _, label := range sortedKeys(br.pathMap) {
				e := mermaidEdge{src: src, dst: br.pathMap[label], conditional: true}
				if label != e.dst {
					e.label = label
				}
				edges = append(edges, e)
			}
		}
	}
	for _, n := range c.order {
		for _, d := range c.nodes[n].destinations {
			edges = append(edges, mermaidEdge{src: n, dst: d, conditional: true})
		}
	}
	slices.SortFunc(edges, func(a, b mermaidEdge) int {
		return strings.Compare(a.src+"\x00"+a.dst+"\x00"+a.label, b.src+"\x00"+b.dst+"\x00"+b.label)
	})
	edges = slices.CompactFunc(edges, func(a, b mermaidEdge) bool { return a == b })
	for _, e := range edges {
		src, dst := mermaidID(prefix, e.src), mermaidID(prefix, e.dst)
		switch {
		case e.conditional && e.label != "":
			lines = append(lines, fmt.Sprintf("%s%s -. &nbsp;%s&nbsp; .-> %s;", indent, src, e.label, dst))
		case e.conditional:
			lines = append(lines, fmt.Sprintf("%s%s -.-> %s;", indent, src, dst))
		case e.label != "":
			lines = append(lines, fmt.Sprintf("%s%s -- &nbsp;%s&nbsp; --> %s;", indent, src, e.label, dst))
		default:
			lines = append(lines, fmt.Sprintf("%s%s --> %s;", indent, src, dst))
		}
	}
	return lines
}

func joinPrefix(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + ":" + name
}

// mermaidID makes a node id Mermaid accepts (see mermaidpath.ID).
func mermaidID(prefix, name string) string { return mermaidpath.ID(prefix, name) }
