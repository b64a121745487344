package chat

import (
	"encoding/json"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// RoleRemove is the role of a remove marker (see Remove): it never reaches
// a model, the reducer consumes it.
const RoleRemove llms.ChatMessageType = "remove"

// RemoveAllID is the id of the marker RemoveAll returns (LangGraph's
// REMOVE_ALL_MESSAGES).
const RemoveAllID = "__remove_all__"

// Message is one message of a conversation: langchaingo's
// llms.MessageContent (a role and parts) with an id, by which the messages
// reducer replaces and removes it.
type Message struct {
	// ID identifies the message in its history. Leave it empty and the
	// reducer assigns one.
	ID string
	// Role is who speaks: human, ai, system, tool (or RoleRemove for a
	// remove marker).
	Role llms.ChatMessageType
	// Parts are the contents: llms.TextContent, llms.ImageURLContent,
	// llms.BinaryContent, llms.ToolCall, llms.ToolCallResponse.
	Parts []llms.ContentPart
	// Name is LangChain's message name (a speaker's name). A tool
	// message's name is its response's Name instead.
	Name string
	// Status is a tool message's status, "success" or "error" (empty is
	// success).
	Status string
	// InvalidToolCalls are the tool calls of an AI message whose
	// arguments could not be read as a JSON object (LangChain's
	// invalid_tool_calls); they are never run.
	InvalidToolCalls []InvalidToolCall
	// AdditionalKwargs and ResponseMetadata are LangChain's fields of the
	// same names, kept as they came (JSON values by key).
	AdditionalKwargs map[string]json.RawMessage
	ResponseMetadata map[string]json.RawMessage
	// Usage is an AI message's token usage (LangChain's usage_metadata).
	Usage *Usage
	// Reasoning holds the message's reasoning blocks (LangChain's
	// {"type": "reasoning"}, Anthropic's "thinking" and
	// "redacted_thinking") as they came, each with its place in the
	// content list, so the message round-trips whole. Content, what a
	// model is sent, leaves them out: langchaingo's parts have no place
	// for them.
	Reasoning []Reasoning
}

// Reasoning is a reasoning block of a message's content.
type Reasoning struct {
	// At is the block's index in the message's content list.
	At int
	// Block is the block's JSON object, as it came (compacted).
	Block json.RawMessage
}

// Text returns the block's reasoning text: a "reasoning" block's
// reasoning (or its summary texts, joined), a "thinking" block's
// thinking; "" for a redacted one.
func (r Reasoning) Text() string {
	var b struct {
		Reasoning string `json:"reasoning"`
		Thinking  string `json:"thinking"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	_ = json.Unmarshal(r.Block, &b)
	if b.Reasoning != "" || b.Thinking != "" {
		return b.Reasoning + b.Thinking
	}
	var out strings.Builder
	for _, s := range b.Summary {
		out.WriteString(s.Text)
	}
	return out.String()
}

// InvalidToolCall is a tool call whose arguments are not a JSON object.
type InvalidToolCall struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Args  string `json:"args,omitempty"`
	Error string `json:"error,omitempty"`
}

// Usage is the token usage of a model call (LangChain's UsageMetadata).
type Usage struct {
	InputTokens        int            `json:"input_tokens"`
	OutputTokens       int            `json:"output_tokens"`
	TotalTokens        int            `json:"total_tokens"`
	InputTokenDetails  map[string]int `json:"input_token_details,omitempty"`
	OutputTokenDetails map[string]int `json:"output_token_details,omitempty"`
}

// Human returns a human message of text.
func Human(text string) Message { return textMessage(llms.ChatMessageTypeHuman, text) }

// System returns a system message of text.
func System(text string) Message { return textMessage(llms.ChatMessageTypeSystem, text) }

// AI returns an AI message of text (omitted when empty) and tool calls.
func AI(text string, calls ...llms.ToolCall) Message {
	m := Message{Role: llms.ChatMessageTypeAI}
	if text != "" {
		m.Parts = append(m.Parts, llms.TextContent{Text: text})
	}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return m
}

// ToolResult returns the tool message answering the tool call callID of the
// named tool with content.
func ToolResult(callID, name, content string) Message {
	return Message{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: callID, Name: name, Content: content},
	}}
}

// Tool status values (Message.Status).
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Remove returns a marker that makes the reducer delete the message with
// the given id (LangGraph's RemoveMessage).
func Remove(id string) Message { return Message{ID: id, Role: RoleRemove} }

// RemoveAll returns a marker that makes the reducer drop the whole history:
// only the messages after it in the same write remain.
func RemoveAll() Message { return Remove(RemoveAllID) }

// Call returns a tool call of the named tool with JSON arguments.
func Call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// WithID returns m with the given id.
func (m Message) WithID(id string) Message {
	m.ID = id
	return m
}

// IsRemove reports whether m is a remove marker.
func (m Message) IsRemove() bool { return m.Role == RoleRemove }

// Text returns the message's text parts, joined.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the tool calls the message asks for, in order.
func (m Message) ToolCalls() []llms.ToolCall {
	var out []llms.ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(llms.ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}

// ToolResponse returns the message's tool response, if it has one.
func (m Message) ToolResponse() (llms.ToolCallResponse, bool) {
	for _, p := range m.Parts {
		if r, ok := p.(llms.ToolCallResponse); ok {
			return r, true
		}
	}
	return llms.ToolCallResponse{}, false
}

// Content returns the message as langchaingo's llms.MessageContent (the id
// is dropped: models do not take it). The parts are shared, not copied.
func (m Message) Content() llms.MessageContent {
	return llms.MessageContent{Role: m.Role, Parts: m.Parts}
}

// FromContent returns mc as a Message with the given id ("" to let the
// reducer assign one).
func FromContent(id string, mc llms.MessageContent) Message {
	return Message{ID: id, Role: mc.Role, Parts: mc.Parts}
}

// Contents returns the messages as llms.MessageContent for a model call,
// in order, leaving out remove markers.
func Contents(msgs []Message) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, m := range msgs {
		if !m.IsRemove() {
			out = append(out, m.Content())
		}
	}
	return out
}

// Last returns the last message of msgs, and false when there is none.
func Last(msgs []Message) (Message, bool) {
	if len(msgs) == 0 {
		return Message{}, false
	}
	return msgs[len(msgs)-1], true
}

func textMessage(role llms.ChatMessageType, text string) Message {
	return Message{Role: role, Parts: []llms.ContentPart{llms.TextContent{Text: text}}}
}
