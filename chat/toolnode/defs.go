package toolnode

import (
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// schemaTool is a tool that says what its input is: a JSON Schema of the
// JSON object it takes — a nodes/tool.SchemaTool, such as tool.Typed
// (tool.New). The model is offered its schema as the tool's parameters
// and the node passes the call's arguments to it as they are; any other
// tool is offered a single string parameter "input", which the node passes
// to it.
type schemaTool interface {
	tools.Tool
	InputSchema() json.RawMessage
}

// Definitions returns the tools as a model is offered them with
// llms.WithTools: name, description and parameters (the schema of a tool
// with an InputSchema method, a nodes/tool.SchemaTool such as tool.Typed;
// else one string "input").
func Definitions(ts []tools.Tool) []llms.Tool {
	out := make([]llms.Tool, 0, len(ts))
	for _, t := range ts {
		var params any = map[string]any{
			"type":       "object",
			"properties": map[string]any{"input": map[string]any{"type": "string", "description": "the tool's input"}},
			"required":   []string{"input"},
		}
		if st, ok := t.(schemaTool); ok {
			params = json.RawMessage(st.InputSchema())
		}
		out = append(out, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name(), Description: t.Description(), Parameters: params,
		}})
	}
	return out
}

// input is what the node passes to t for a call with JSON args: the args
// for a schemaTool; for any other tool the "input" string of the args
// object, or the args themselves when they are not such an object.
func input(t tools.Tool, args string) string {
	if _, ok := t.(schemaTool); ok {
		return args
	}
	var a struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != nil {
		return *a.Input
	}
	return args
}
