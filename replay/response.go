package replay

import (
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
)

// The form a model's response is recorded in: langchaingo encodes a
// ToolCall as a message part ({"type":"tool_call",...}) that it does not
// decode back into a ToolCall, so the recording spells every field out.

type responseJSON struct {
	Choices []choiceJSON `json:"choices"`
}

type choiceJSON struct {
	Content          string             `json:"content,omitempty"`
	StopReason       string             `json:"stop_reason,omitempty"`
	GenerationInfo   map[string]any     `json:"generation_info,omitempty"`
	FuncCall         *llms.FunctionCall `json:"func_call,omitempty"`
	ToolCalls        []toolCallJSON     `json:"tool_calls,omitempty"`
	ReasoningContent string             `json:"reasoning_content,omitempty"`
}

type toolCallJSON struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function *llms.FunctionCall `json:"function,omitempty"`
}

func encodeResponse(resp *llms.ContentResponse) ([]byte, error) {
	var r responseJSON
	if resp != nil {
		r.Choices = make([]choiceJSON, 0, len(resp.Choices))
		for _, c := range resp.Choices {
			if c == nil {
				continue
			}
			cj := choiceJSON{Content: c.Content, StopReason: c.StopReason, GenerationInfo: c.GenerationInfo, FuncCall: c.FuncCall, ReasoningContent: c.ReasoningContent}
			for _, tc := range c.ToolCalls {
				cj.ToolCalls = append(cj.ToolCalls, toolCallJSON{ID: tc.ID, Type: tc.Type, Function: tc.FunctionCall})
			}
			r.Choices = append(r.Choices, cj)
		}
	}
	return json.Marshal(r)
}

func decodeResponse(data []byte) (*llms.ContentResponse, error) {
	var r responseJSON
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	out := &llms.ContentResponse{Choices: make([]*llms.ContentChoice, 0, len(r.Choices))}
	for _, cj := range r.Choices {
		c := &llms.ContentChoice{Content: cj.Content, StopReason: cj.StopReason, GenerationInfo: cj.GenerationInfo, FuncCall: cj.FuncCall, ReasoningContent: cj.ReasoningContent}
		for _, tc := range cj.ToolCalls {
			c.ToolCalls = append(c.ToolCalls, llms.ToolCall{ID: tc.ID, Type: tc.Type, FunctionCall: tc.Function})
		}
		out.Choices = append(out.Choices, c)
	}
	return out, nil
}
