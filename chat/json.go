package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// The JSON form of a Message is LangChain's message dict, defined here
// once and written by MarshalJSON (docs/chat.md has the whole mapping):
//
//	{"type": "human"|"ai"|"system"|"tool"|"remove"|"chat",
//	 "content": "…" | [{"type": "text", "text": "…"},
//	                   {"type": "image_url", "image_url": {"url": "…", "detail": "…"}},
//	                   {"type": "image"|"audio"|"file", "source_type": "base64", "mime_type": "…", "data": "<base64>"},
//	                   {"type": "reasoning"|"thinking"|"redacted_thinking", …} (kept as they came)],
//	 "id": "…", "name": "…",
//	 "tool_calls": [{"id": "…", "name": "…", "args": {…}, "type": "tool_call"}],
//	 "invalid_tool_calls": [{"id": "…", "name": "…", "args": "…", "error": "…", "type": "invalid_tool_call"}],
//	 "tool_call_id": "…", "status": "success"|"error",
//	 "role": "…" (a "chat" message's role),
//	 "additional_kwargs": {…}, "response_metadata": {…},
//	 "usage_metadata": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}
//
// Empty fields are left out. Content is a string when the message has at
// most one text part and nothing else, and a list of blocks otherwise
// (reasoning blocks at the places they were read from).
// UnmarshalJSON reads that form and every other one LangGraph's server
// accepts (json_decode.go), and the {id, role, parts} form of earlier
// versions (json_legacy.go).

// wireMessage is a message as MarshalJSON writes it.
type wireMessage struct {
	Type             string                     `json:"type"`
	Content          any                        `json:"content"`
	ID               string                     `json:"id,omitempty"`
	Name             string                     `json:"name,omitempty"`
	Role             string                     `json:"role,omitempty"`
	ToolCalls        []wireToolCall             `json:"tool_calls,omitempty"`
	InvalidToolCalls []wireInvalidCall          `json:"invalid_tool_calls,omitempty"`
	ToolCallID       string                     `json:"tool_call_id,omitempty"`
	Status           string                     `json:"status,omitempty"`
	AdditionalKwargs map[string]json.RawMessage `json:"additional_kwargs,omitempty"`
	ResponseMetadata map[string]json.RawMessage `json:"response_metadata,omitempty"`
	UsageMetadata    *Usage                     `json:"usage_metadata,omitempty"`
}

type wireToolCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Type string          `json:"type"`
}

type wireInvalidCall struct {
	InvalidToolCall
	Type string `json:"type"`
}

// wireBlock is a content block as MarshalJSON writes it.
type wireBlock struct {
	Type       string     `json:"type"`
	Text       *string    `json:"text,omitempty"`
	ImageURL   *wireImage `json:"image_url,omitempty"`
	SourceType string     `json:"source_type,omitempty"`
	MIMEType   string     `json:"mime_type,omitempty"`
	Data       string     `json:"data,omitempty"`
}

type wireImage struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// MarshalJSON writes the message in LangChain's dict form. A part the form
// cannot hold (a tool call outside an AI message, a tool response outside
// a tool message, a part type this package does not know) is an error
// naming the message.
func (m Message) MarshalJSON() ([]byte, error) {
	wm, err := m.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(wm)
}

func (m Message) wire() (wireMessage, error) {
	wm := wireMessage{ID: m.ID, Name: m.Name, AdditionalKwargs: m.AdditionalKwargs, ResponseMetadata: m.ResponseMetadata, UsageMetadata: m.Usage}
	fail := func(format string, args ...any) (wireMessage, error) {
		return wireMessage{}, fmt.Errorf("chat: encode message %q (%s): %s", m.ID, m.Role, fmt.Sprintf(format, args...))
	}
	switch m.Role {
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI, llms.ChatMessageTypeSystem, llms.ChatMessageTypeTool, RoleRemove:
		wm.Type = string(m.Role)
	case "":
		return fail("no role")
	default:
		wm.Type, wm.Role = "chat", string(m.Role)
	}
	if m.Role == RoleRemove {
		wm.Content = ""
		return wm, nil
	}
	var blocks []wireBlock
	var resp *llms.ToolCallResponse
	for i, p := range m.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			blocks = append(blocks, wireBlock{Type: "text", Text: &p.Text})
		case llms.ImageURLContent:
			blocks = append(blocks, wireBlock{Type: "image_url", ImageURL: &wireImage{URL: p.URL, Detail: p.Detail}})
		case llms.BinaryContent:
			blocks = append(blocks, wireBlock{Type: dataBlockType(p.MIMEType), SourceType: "base64", MIMEType: p.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Data)})
		case llms.ToolCall:
			if m.Role != llms.ChatMessageTypeAI {
				return fail("part %d: only an AI message holds tool calls", i)
			}
			if p.FunctionCall == nil {
				return fail("part %d: tool call %q has no function", i, p.ID)
			}
			args := strings.TrimSpace(p.FunctionCall.Arguments)
			if args == "" {
				args = "{}"
			}
			if !isObject([]byte(args)) {
				wm.InvalidToolCalls = append(wm.InvalidToolCalls, wireInvalidCall{InvalidToolCall{ID: p.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Arguments, Error: "arguments are not a JSON object"}, "invalid_tool_call"})
				continue
			}
			wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: p.ID, Name: p.FunctionCall.Name, Args: compact(args), Type: "tool_call"})
		case llms.ToolCallResponse:
			if m.Role != llms.ChatMessageTypeTool {
				return fail("part %d: only a tool message holds a tool response", i)
			}
			if resp != nil {
				return fail("part %d: a second tool response", i)
			}
			resp = &p
		default:
			return fail("part %d: cannot encode a %T", i, p)
		}
	}
	for _, c := range m.InvalidToolCalls {
		wm.InvalidToolCalls = append(wm.InvalidToolCalls, wireInvalidCall{c, "invalid_tool_call"})
	}
	if m.Role == llms.ChatMessageTypeTool {
		if resp == nil {
			return fail("a tool message needs a tool response part (chat.ToolResult)")
		}
		wm.ToolCallID, wm.Status = resp.ToolCallID, m.Status
		if resp.Name != "" {
			wm.Name = resp.Name
		}
		if resp.Content != "" || len(blocks) == 0 {
			text := resp.Content
			blocks = append([]wireBlock{{Type: "text", Text: &text}}, blocks...)
		}
	}
	switch {
	case len(m.Reasoning) > 0:
		wm.Content = withReasoning(blocks, m.Reasoning)
	case len(blocks) == 0:
		wm.Content = ""
	case len(blocks) == 1 && blocks[0].Type == "text":
		wm.Content = *blocks[0].Text
	default:
		wm.Content = blocks
	}
	return wm, nil
}

// withReasoning returns the content list of blocks with the reasoning
// blocks back in their places (At; one past the list's end goes last).
func withReasoning(blocks []wireBlock, reasoning []Reasoning) []any {
	out := make([]any, 0, len(blocks)+len(reasoning))
	next := 0
	for _, r := range reasoning {
		for next < len(blocks) && len(out) < r.At {
			out = append(out, blocks[next])
			next++
		}
		out = append(out, r.Block)
	}
	for ; next < len(blocks); next++ {
		out = append(out, blocks[next])
	}
	return out
}

// dataBlockType is the LangChain block type for base64 data of a MIME
// type: image, audio, or file for the rest.
func dataBlockType(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	}
	return "file"
}

// isObject reports whether data is one JSON object.
func isObject(data []byte) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(data, &v) == nil && v != nil
}

// compact returns a JSON text without insignificant space (it is valid:
// the caller checked).
func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return b.Bytes()
}
