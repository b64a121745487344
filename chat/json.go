package chat

import (
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// The JSON form of a Message is defined here, once:
//
//	{"id": "…", "role": "ai", "parts": [
//	  {"type": "text", "text": "…"},
//	  {"type": "image_url", "url": "…", "detail": "…"},
//	  {"type": "binary", "mime_type": "…", "data": "<base64>"},
//	  {"type": "tool_call", "id": "…", "call_type": "function", "function": {"name": "…", "arguments": "…"}},
//	  {"type": "tool_response", "tool_call_id": "…", "name": "…", "content": "…"}]}
//
// langchaingo's own JSON for MessageContent is not used: in v0.1.14 it
// decodes a tool call without its function (name and arguments are lost).

// jsonPart is one part in its JSON form; Type says which fields are used.
type jsonPart struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// image_url
	URL    string `json:"url,omitempty"`
	Detail string `json:"detail,omitempty"`
	// binary
	MIMEType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data,omitempty"`
	// tool_call
	ID       string             `json:"id,omitempty"`
	CallType string             `json:"call_type,omitempty"`
	Function *llms.FunctionCall `json:"function,omitempty"`
	// tool_response
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	Content    string `json:"content,omitempty"`
}

type jsonMessage struct {
	ID    string               `json:"id,omitempty"`
	Role  llms.ChatMessageType `json:"role"`
	Parts []jsonPart           `json:"parts"`
}

// MarshalJSON encodes the message with all of its parts. A part of a type
// this package does not know is an error naming the message.
func (m Message) MarshalJSON() ([]byte, error) {
	jm := jsonMessage{ID: m.ID, Role: m.Role, Parts: make([]jsonPart, 0, len(m.Parts))}
	for i, p := range m.Parts {
		var jp jsonPart
		switch p := p.(type) {
		case llms.TextContent:
			jp = jsonPart{Type: "text", Text: p.Text}
		case llms.ImageURLContent:
			jp = jsonPart{Type: "image_url", URL: p.URL, Detail: p.Detail}
		case llms.BinaryContent:
			jp = jsonPart{Type: "binary", MIMEType: p.MIMEType, Data: p.Data}
		case llms.ToolCall:
			jp = jsonPart{Type: "tool_call", ID: p.ID, CallType: p.Type, Function: p.FunctionCall}
		case llms.ToolCallResponse:
			jp = jsonPart{Type: "tool_response", ToolCallID: p.ToolCallID, Name: p.Name, Content: p.Content}
		default:
			return nil, fmt.Errorf("chat: message %q: part %d: cannot encode a %T", m.ID, i, p)
		}
		jm.Parts = append(jm.Parts, jp)
	}
	return json.Marshal(jm)
}

// UnmarshalJSON decodes what MarshalJSON encoded. An unknown part type is an
// error naming the message and the part.
func (m *Message) UnmarshalJSON(data []byte) error {
	var jm jsonMessage
	if err := json.Unmarshal(data, &jm); err != nil {
		return fmt.Errorf("chat: decode message: %w", err)
	}
	out := Message{ID: jm.ID, Role: jm.Role}
	if len(jm.Parts) > 0 {
		out.Parts = make([]llms.ContentPart, 0, len(jm.Parts))
	}
	for i, jp := range jm.Parts {
		var p llms.ContentPart
		switch jp.Type {
		case "text":
			p = llms.TextContent{Text: jp.Text}
		case "image_url":
			p = llms.ImageURLContent{URL: jp.URL, Detail: jp.Detail}
		case "binary":
			p = llms.BinaryContent{MIMEType: jp.MIMEType, Data: jp.Data}
		case "tool_call":
			p = llms.ToolCall{ID: jp.ID, Type: jp.CallType, FunctionCall: jp.Function}
		case "tool_response":
			p = llms.ToolCallResponse{ToolCallID: jp.ToolCallID, Name: jp.Name, Content: jp.Content}
		default:
			return fmt.Errorf("chat: decode message %q: part %d: unknown type %q", jm.ID, i, jp.Type)
		}
		out.Parts = append(out.Parts, p)
	}
	*m = out
	return nil
}
