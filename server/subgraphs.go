package server

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/mermaidpath"
)

// subgrapher is a Graph (Register's) that lists its subgraphs' schemas
// (GET /assistants/{id}/subgraphs) and draws their inner nodes (xray).
type subgrapher interface {
	subgraphSchemas(namespace string, recurse bool) map[string]Schemas
	drawingXray(depth int) Drawing
}

// withSubgraphs is a *graph.Compiled[T] of any state type T.
type withSubgraphs interface {
	Subgraphs() map[string]any
}

func (t *typed[S]) subgraphSchemas(namespace string, recurse bool) map[string]Schemas {
	out := map[string]Schemas{}
	walkSubgraphs(t.g, "", namespace, recurse, out)
	return out
}

// walkSubgraphs adds to out the schemas of g's subgraphs, their
// namespaces prefixed (parent|child), as LangGraph's get_subgraphs: only
// the one namespace names (and its descendants when recurse), all of them
// otherwise, recursing when asked.
func walkSubgraphs(g any, prefix, namespace string, recurse bool, out map[string]Schemas) {
	wg, ok := g.(withSubgraphs)
	if !ok {
		return
	}
	for name, sub := range wg.Subgraphs() {
		ns := name
		if prefix != "" {
			ns = prefix + "|" + name
		}
		if namespace != "" && namespace != ns && !strings.HasPrefix(namespace, ns+"|") && !strings.HasPrefix(ns, namespace+"|") {
			continue
		}
		inside := namespace != "" && strings.HasPrefix(ns, namespace+"|")
		if namespace == "" || namespace == ns || inside {
			out[ns] = schemasOfCompiled(sub)
		}
		if recurse || (namespace != "" && strings.HasPrefix(namespace, ns+"|")) {
			walkSubgraphs(sub, ns, namespace, recurse, out)
		}
	}
}

// schemasOfCompiled is schemasOf for a *graph.Compiled[T] of any T.
func schemasOfCompiled(g any) Schemas {
	m := reflect.ValueOf(g).MethodByName("Schema")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return Schemas{Input: []byte(`{"type":"object"}`), Output: []byte(`{"type":"object"}`), State: []byte(`{"type":"object"}`)}
	}
	return schemasOfValue(m.Call(nil)[0])
}

func (s *Server) getAssistantSubgraphs(w http.ResponseWriter, r *http.Request) {
	a, err := s.lookupAssistant(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	recurse := false
	if v := r.URL.Query().Get("recurse"); v != "" {
		if recurse, err = strconv.ParseBool(v); err != nil {
			fail(w, &InputError{Field: "recurse", Err: err})
			return
		}
	}
	out := map[string]any{}
	if sg, ok := a.g.(subgrapher); ok {
		for ns, sc := range sg.subgraphSchemas(r.PathValue("ns"), recurse) {
			out[ns] = schemasJSON(a.GraphID, sc)
		}
	}
	writeJSON(w, 200, out)
}

// xrayParam reads GET /assistants/{id}/graph's xray: true (every level),
// false, or how many levels of subgraphs to draw inside.
func xrayParam(r *http.Request) (int, error) {
	v := r.URL.Query().Get("xray")
	switch v {
	case "", "false":
		return 0, nil
	case "true":
		return 1 << 10, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &InputError{Field: "xray", Err: fmt.Errorf("%q is not true, false or a depth", v)}
	}
	return n, nil
}

func (t *typed[S]) drawingXray(depth int) Drawing {
	return drawingXray(t.g, t.g.Mermaid(), depth)
}

// drawable is a *graph.Compiled[T] of any state type T.
type drawable interface {
	Nodes() []string
	Subgraphs() map[string]any
}

// drawingXray draws g with the inner nodes of its subgraphs, depth levels
// down, as LangGraph's get_graph(xray): a subgraph's nodes are
// "sub:node", its own start and end are left out, and the parent's edges
// to and from the subgraph's node go to its first nodes and come from its
// last ones. It reads the edges from g's Mermaid text, its one drawing of
// record.
func drawingXray(g drawable, mermaid string, depth int) Drawing {
	ids := map[string]string{}    // Mermaid id → node path
	subs := map[string]drawable{} // subgraph path → its graph, drawn inside
	var nodes []DrawingNode
	// index names every node of every level; drawn says the level's
	// nodes are drawn (its subgraph is within depth).
	var index func(prefix string, g drawable, level int, drawn bool)
	index = func(prefix string, g drawable, level int, drawn bool) {
		join := func(n string) string {
			if prefix == "" {
				return n
			}
			return prefix + ":" + n
		}
		for _, n := range append([]string{graph.Start, graph.End}, g.Nodes()...) {
			ids[mermaidpath.ID(prefix, n)] = join(n)
		}
		inner := g.Subgraphs()
		for _, n := range g.Nodes() {
			sub, ok := inner[n].(drawable)
			inside := ok && drawn && level < depth
			if ok {
				index(join(n), sub, level+1, inside)
			}
			if inside {
				subs[join(n)] = sub
			} else if drawn {
				nodes = append(nodes, DrawingNode{ID: join(n), Type: "runnable", Data: map[string]any{"id": []string{n}, "name": n}})
			}
		}
	}
	index("", g, 0, true)

	blocks := map[string][]DrawingEdge{} // edges by the subgraph path they are drawn in
	var stack []string
	for _, line := range strings.Split(mermaid, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "subgraph "):
			stack = append(stack, ids[strings.TrimPrefix(trimmed, "subgraph ")])
			continue
		case trimmed == "end":
			stack = stack[:len(stack)-1]
			continue
		case !strings.HasSuffix(trimmed, ";"):
			continue
		}
		cur := ""
		if len(stack) > 0 {
			cur = stack[len(stack)-1]
		}
		if _, drawn := subs[cur]; cur != "" && !drawn {
			continue
		}
		if e, ok := parseMermaidEdge(strings.TrimSuffix(trimmed, ";"), ids); ok {
			blocks[cur] = append(blocks[cur], e)
		}
	}
	// Splice each drawn subgraph into its parent's edges, innermost first.
	paths := make([]string, 0, len(subs))
	for p := range subs {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if a, b := strings.Count(paths[i], ":"), strings.Count(paths[j], ":"); a != b {
			return a > b
		}
		return paths[i] < paths[j]
	})
	for _, p := range paths {
		var first, last, inner []DrawingEdge
		hasOut := map[string]bool{}
		for _, e := range blocks[p] {
			hasOut[e.Source] = true
			switch {
			case e.Source == p+":"+graph.Start:
				first = append(first, e)
			case e.Target == p+":"+graph.End:
				last = append(last, e)
			default:
				inner = append(inner, e)
			}
		}
		lasts := []string{}
		for _, e := range last {
			lasts = append(lasts, e.Source)
		}
		if len(lasts) == 0 { // no edge to its end: the nodes without edges out end it
			for _, n := range nodes {
				if strings.HasPrefix(n.ID, p+":") && !hasOut[n.ID] {
					lasts = append(lasts, n.ID)
				}
			}
		}
		parent := ""
		if i := strings.LastIndex(p, ":"); i >= 0 {
			parent = p[:i]
		}
		var rewired []DrawingEdge
		for _, e := range blocks[parent] {
			switch {
			case e.Target == p:
				for _, f := range first {
					rewired = append(rewired, DrawingEdge{Source: e.Source, Target: f.Target, Data: e.Data, Conditional: e.Conditional})
				}
			case e.Source == p:
				for _, l := range lasts {
					rewired = append(rewired, DrawingEdge{Source: l, Target: e.Target, Data: e.Data, Conditional: e.Conditional})
				}
			default:
				rewired = append(rewired, e)
			}
		}
		blocks[parent] = append(rewired, inner...)
	}
	d := Drawing{Nodes: []DrawingNode{{ID: graph.Start, Type: "schema", Data: graph.Start}}}
	d.Nodes = append(d.Nodes, nodes...)
	d.Nodes = append(d.Nodes, DrawingNode{ID: graph.End, Type: "schema", Data: graph.End})
	d.Edges = blocks[""]
	return d
}
