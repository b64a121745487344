package chat

import (
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// The {id, role, parts} form earlier versions stored (a message is
// recognised by its "role" and "parts" keys, which no LangChain form has
// together):
//
//	{"id": "…", "role": "ai", "parts": [
//	  {"type": "text", "text": "…"},
//	  {"type": "image_url", "url": "…", "detail": "…"},
//	  {"type": "binary", "mime_type": "…", "data": "<base64>"},
//	  {"type": "tool_call", "id": "…", "call_type": "function", "function": {"name": "…", "arguments": "…"}},
//	  {"type": "tool_response", "tool_call_id": "…", "name": "…", "content": "…"}]}
//
// It is read, never written; DeriveID still hashes it, so a message gets
// the id it got before.

// legacyPart is one part in the old form; Type says which fields are used.
type legacyPart struct {
	Type       string             `json:"type"`
	Text       string             `json:"text,omitempty"`
	URL        string             `json:"url,omitempty"`
	Detail     string             `json:"detail,omitempty"`
	MIMEType   string             `json:"mime_type,omitempty"`
	Data       []byte             `json:"data,omitempty"`
	ID         string             `json:"id,omitempty"`
	CallType   string             `json:"call_type,omitempty"`
	Function   *llms.FunctionCall `json:"function,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
	Name       string             `json:"name,omitempty"`
	Content    string             `json:"content,omitempty"`
}

type legacyMessage struct {
	ID    string               `json:"id,omitempty"`
	Role  llms.ChatMessageType `json:"role"`
	Parts []legacyPart         `json:"parts"`
}

// fromLegacy decodes the old form. An unknown part type or role is an
// error naming the part.
func (m *Message) fromLegacy(data []byte) error {
	var jm legacyMessage
	if err := json.Unmarshal(data, &jm); err != nil {
		return bad("", "an {id, role, parts} message: %v", err)
	}
	if jm.Role == "" {
		return bad("role", "missing")
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
			return bad(fmt.Sprintf("parts[%d].type", i), "unknown part type %q", jp.Type)
		}
		out.Parts = append(out.Parts, p)
	}
	*m = out
	return nil
}

// legacyJSON encodes m's id-less role and parts in the old form, for
// DeriveID; ok is false for a part the old form cannot hold.
func legacyJSON(m Message) ([]byte, bool) {
	jm := legacyMessage{Role: m.Role, Parts: make([]legacyPart, 0, len(m.Parts))}
	for _, p := range m.Parts {
		var jp legacyPart
		switch p := p.(type) {
		case llms.TextContent:
			jp = legacyPart{Type: "text", Text: p.Text}
		case llms.ImageURLContent:
			jp = legacyPart{Type: "image_url", URL: p.URL, Detail: p.Detail}
		case llms.BinaryContent:
			jp = legacyPart{Type: "binary", MIMEType: p.MIMEType, Data: p.Data}
		case llms.ToolCall:
			jp = legacyPart{Type: "tool_call", ID: p.ID, CallType: p.Type, Function: p.FunctionCall}
		case llms.ToolCallResponse:
			jp = legacyPart{Type: "tool_response", ToolCallID: p.ToolCallID, Name: p.Name, Content: p.Content}
		default:
			return nil, false
		}
		jm.Parts = append(jm.Parts, jp)
	}
	b, err := json.Marshal(jm)
	return b, err == nil
}
