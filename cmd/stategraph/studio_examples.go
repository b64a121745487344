package main

import (
	"encoding/json"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/server"
)

// studioExamples is a valid first input of each served graph: the page's
// Start a run box starts with it, so a first run does what the example
// does instead of failing on empty fields.
func studioExamples() map[string]any {
	return map[string]any{
		"planexecute": servegraphs.DeliveryInput(),
		"support":     map[string]any{"request": "order O1001 arrived damaged"},
		"essay":       map[string]any{"topic": "Go"},
		"chat":        map[string]any{"messages": []any{map[string]any{"type": "human", "content": "What is the weather in Oslo?"}}},
	}
}

// withExample is a served graph whose input schema carries an example
// (JSON Schema's "examples"), which GET /assistants/{id}/schemas returns.
type withExample struct {
	server.Graph
	example any
}

func (g withExample) Schemas() server.Schemas {
	sc := g.Graph.Schemas()
	var in map[string]any
	if json.Unmarshal(sc.Input, &in) != nil || in == nil {
		return sc
	}
	in["examples"] = []any{g.example}
	if raw, err := json.Marshal(in); err == nil {
		sc.Input = raw
	}
	return sc
}

// withExamples gives each graph of graphs its example, if it has one.
func withExamples(graphs []server.Graph) []server.Graph {
	ex := studioExamples()
	out := make([]server.Graph, len(graphs))
	for i, g := range graphs {
		out[i] = g
		if e, ok := ex[g.ID()]; ok {
			out[i] = withExample{Graph: g, example: e}
		}
	}
	return out
}
