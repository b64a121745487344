package nodes_test

import (
	"context"
	"encoding/json"
	"github.com/stategraph/stategraph/nodes"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// testTools returns tools with the given names, each answering "name:input".
func testTools(names ...string) []tools.Tool {
	ts := make([]tools.Tool, len(names))
	for i, n := range names {
		ts[i] = nodes.FuncTool{ToolName: n, ToolDescription: "the " + n + " tool", Fn: func(_ context.Context, in string) (string, error) { return n + ":" + in, nil }}
	}
	return ts
}

// st is a plan step "do id" calling tool with input (JSON, "" for none).
func st(id, tool string, input string, deps ...string) plan.Step {
	s := plan.Step{ID: id, Description: "do " + id, Tool: tool, DependsOn: deps}
	if input != "" {
		s.Input = json.RawMessage(input)
	}
	return s
}
