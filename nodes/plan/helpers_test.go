package plan

import (
	"context"
	"encoding/json"

	"github.com/tmc/langchaingo/tools"
)

// fakeTool is a tools.Tool that answers "name:input".
type fakeTool struct{ name string }

func (t fakeTool) Name() string        { return t.name }
func (t fakeTool) Description() string { return "the " + t.name + " tool" }
func (t fakeTool) Call(_ context.Context, in string) (string, error) {
	return t.name + ":" + in, nil
}

// testTools returns fake tools with the given names.
func testTools(names ...string) []tools.Tool {
	ts := make([]tools.Tool, len(names))
	for i, n := range names {
		ts[i] = fakeTool{n}
	}
	return ts
}

// st is a step "do id" calling tool with input (JSON, "" for none).
func st(id, tool string, input string, deps ...string) Step {
	s := Step{ID: id, Description: "do " + id, Tool: tool, DependsOn: deps}
	if input != "" {
		s.Input = json.RawMessage(input)
	}
	return s
}

// stepIDs lists the ids of p's steps, in order.
func stepIDs(p Plan) []string {
	var ids []string
	for _, s := range p.Steps {
		ids = append(ids, s.ID)
	}
	return ids
}
