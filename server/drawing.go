package server

import (
	"strings"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// Drawing is a graph's nodes and edges in the form of LangGraph's
// GET /assistants/{id}/graph.
type Drawing struct {
	Nodes []DrawingNode `json:"nodes"`
	Edges []DrawingEdge `json:"edges"`
}

// DrawingNode is a node of a Drawing: "__start__" and "__end__" have type
// "schema", the graph's nodes "runnable".
type DrawingNode struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data any    `json:"data"`
}

// DrawingEdge is an edge of a Drawing; Data is a route's label when it
// differs from the target.
type DrawingEdge struct {
	Source      string `json:"source"`
	Target      string `json:"target"`
	Data        string `json:"data,omitempty"`
	Conditional bool   `json:"conditional"`
}

// drawingFromMermaid reads the top-level edges of the graph's Mermaid text
// (its one drawing of record, so the two never disagree). Subgraph blocks
// are drawn as their node.
func drawingFromMermaid(nodes []string, mermaid string) Drawing {
	byID := map[string]string{}
	for _, n := range append([]string{graph.Start, graph.End}, nodes...) {
		byID[mermaidpath.ID("", n)] = n
	}
	d := Drawing{Nodes: []DrawingNode{{ID: graph.Start, Type: "schema", Data: graph.Start}}}
	for _, n := range nodes {
		d.Nodes = append(d.Nodes, DrawingNode{ID: n, Type: "runnable", Data: map[string]any{"id": []string{n}, "name": n}})
	}
	d.Nodes = append(d.Nodes, DrawingNode{ID: graph.End, Type: "schema", Data: graph.End})
	depth := 0
	for _, line := range strings.Split(mermaid, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "subgraph "):
			depth++
			continue
		case trimmed == "end":
			depth--
			continue
		case depth > 0 || !strings.HasSuffix(trimmed, ";"):
			continue
		}
		e, ok := parseMermaidEdge(strings.TrimSuffix(trimmed, ";"), byID)
		if ok {
			d.Edges = append(d.Edges, e)
		}
	}
	return d
}

func parseMermaidEdge(s string, byID map[string]string) (DrawingEdge, bool) {
	for _, arrow := range []struct {
		open, close string
		cond        bool
	}{{" -. ", " .-> ", true}, {" -.-> ", "", true}, {" -- ", " --> ", false}, {" --> ", "", false}} {
		i := strings.Index(s, arrow.open)
		if i < 0 {
			continue
		}
		src, rest := s[:i], s[i+len(arrow.open):]
		label := ""
		if arrow.close != "" {
			j := strings.Index(rest, arrow.close)
			if j < 0 {
				continue
			}
			label = strings.TrimSuffix(strings.TrimPrefix(rest[:j], "&nbsp;"), "&nbsp;")
			rest = rest[j+len(arrow.close):]
		}
		from, ok1 := byID[src]
		to, ok2 := byID[rest]
		if !ok1 || !ok2 {
			return DrawingEdge{}, false
		}
		return DrawingEdge{Source: from, Target: to, Data: label, Conditional: arrow.cond}, true
	}
	return DrawingEdge{}, false
}
