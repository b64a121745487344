package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
)

// DefaultResponsePrompt is the respond node's system prompt unless
// WithResponsePrompt says otherwise.
const DefaultResponsePrompt = "Give the final answer to the conversation as the structured response, from what the conversation established."

// RespondTool is the name of the tool the respond node forces the model to
// call in StructuredTool mode.
const RespondTool = "respond"

// ErrStructuredResponse is a structured answer the model did not give in
// the answer's shape.
var ErrStructuredResponse = errors.New("agent: no structured response")

// Schema returns the JSON Schema the model is given for a T.
func Schema[T any]() json.RawMessage {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	var zero T
	s := r.Reflect(&zero)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("agent: the schema of %T does not marshal: %v", zero, err))
	}
	return b
}

// respond is the respond node: one model call for the answer as a T.
func (m *modelNode[S, T]) respond(ctx context.Context, s S) (state.Update[S], error) {
	calls := m.count(s)
	schema := Schema[T]()
	mode := m.cfg.mode
	if mode == StructuredAuto {
		mode = StructuredTool
		if _, ok := m.model.(*ollama.LLM); ok {
			mode = StructuredJSON
		}
	}
	prompt := m.cfg.responsePrompt
	var opts []llms.CallOption
	switch mode {
	case StructuredJSON:
		prompt += "\nReply with one JSON object, nothing else, that matches this JSON Schema:\n" + string(schema)
		opts = append(opts, llms.WithJSONMode())
	default:
		opts = append(opts,
			llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
				Name: RespondTool, Description: "Give the final answer in this shape.", Parameters: schema,
			}}}),
			llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": RespondTool}}),
		)
	}
	opts = append(opts, m.cfg.callOpts...)
	resp, extra, steps, err := m.generate(ctx, NodeRespond, s, prompt, opts)
	if err != nil {
		return state.Update[S]{}, fmt.Errorf("agent: respond: model call %d: %w", calls+1, err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return state.Update[S]{}, fmt.Errorf("%w (respond, model call %d)", ErrEmptyResponse, calls+1)
	}
	v, err := decode[T](resp.Choices[0])
	if err != nil {
		return state.Update[S]{}, fmt.Errorf("agent: respond: model call %d: %w", calls+1, err)
	}
	ws := m.counted(m.keys.Response.Set(v))
	if len(extra) > 0 {
		ws = append(ws, m.keys.Messages.Set(extra))
	}
	return state.Writes(m.stepped(ws, steps)...), nil
}

// decode reads the answer from the respond tool's arguments, else from the
// reply's text (JSON, possibly in a code fence).
func decode[T any](choice *llms.ContentChoice) (T, error) {
	var v T
	raw := ""
	for _, tc := range choice.ToolCalls {
		if tc.FunctionCall != nil && tc.FunctionCall.Name == RespondTool {
			raw = tc.FunctionCall.Arguments
			break
		}
	}
	if raw == "" {
		raw = jsonText(choice.Content)
	}
	if raw == "" {
		return v, fmt.Errorf("%w: the reply has neither a %q call nor JSON text", ErrStructuredResponse, RespondTool)
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return v, fmt.Errorf("%w: decode %q into %T: %v", ErrStructuredResponse, truncate(raw, 200), v, err)
	}
	return v, nil
}

// jsonText returns the JSON object in a reply: the text itself, or what a
// code fence or surrounding prose holds between the first { and the last }.
func jsonText(s string) string {
	s = strings.TrimSpace(s)
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+1]
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
