package chat

import (
	"bytes"
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
)

// fastDict is the message dict MarshalJSON writes for the common messages
// (no metadata, string content): decodeFast reads it in one pass, where
// the general decoder goes through a map of every key. Anything else, and
// anything it would have to refuse, is left to the general decoder, which
// gives the same result or the error.
type fastDict struct {
	Type       string          `json:"type"`
	Content    json.RawMessage `json:"content"`
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	ToolCalls  []fastCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Status     string          `json:"status"`
}

type fastCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Type string          `json:"type"`
}

// decodeFast decodes data into m when it is a plain dict fastDict covers,
// and reports whether it did.
func (m *Message) decodeFast(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d fastDict
	if dec.Decode(&d) != nil || dec.More() {
		return false
	}
	// encoding/json matches keys regardless of case; LangChain does not.
	for _, k := range []struct {
		set bool
		key string
	}{{true, `"type"`}, {d.Content != nil, `"content"`}, {d.ID != "", `"id"`}, {d.Name != "", `"name"`},
		{d.ToolCalls != nil, `"tool_calls"`}, {len(d.ToolCalls) > 0, `"args"`}, {len(d.ToolCalls) > 0, `"name"`}, {d.ToolCallID != "", `"tool_call_id"`}, {d.Status != "", `"status"`}} {
		if k.set && !bytes.Contains(data, []byte(k.key)) {
			return false
		}
	}
	var text string
	if len(d.Content) > 0 {
		if d.Content[0] != '"' || json.Unmarshal(d.Content, &text) != nil {
			return false
		}
	}
	out := Message{ID: d.ID}
	switch d.Type {
	case "human", "system":
		if len(d.ToolCalls) > 0 || d.ToolCallID != "" || d.Status != "" {
			return false
		}
		out.Role, out.Name = llms.ChatMessageType(d.Type), d.Name
		if text != "" {
			out.Parts = []llms.ContentPart{llms.TextContent{Text: text}}
		}
	case "ai":
		if d.ToolCallID != "" || d.Status != "" {
			return false
		}
		out.Role, out.Name = llms.ChatMessageTypeAI, d.Name
		if text != "" || len(d.ToolCalls) > 0 {
			out.Parts = make([]llms.ContentPart, 0, 1+len(d.ToolCalls))
		}
		if text != "" {
			out.Parts = append(out.Parts, llms.TextContent{Text: text})
		}
		for _, c := range d.ToolCalls {
			if c.Name == "" || len(c.Args) == 0 || c.Args[0] != '{' {
				return false
			}
			args := c.Args
			if bytes.ContainsAny(args, " \t\r\n") {
				args = compactRaw(args)
			}
			out.Parts = append(out.Parts, llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: string(args)}})
		}
	case "tool":
		if len(d.ToolCalls) > 0 || d.ToolCallID == "" || (d.Status != "" && d.Status != StatusSuccess && d.Status != StatusError) {
			return false
		}
		out.Role = llms.ChatMessageTypeTool
		if d.Status == StatusError {
			out.Status = StatusError
		}
		out.Parts = []llms.ContentPart{llms.ToolCallResponse{ToolCallID: d.ToolCallID, Name: d.Name, Content: text}}
	default:
		return false
	}
	*m = out
	return true
}
