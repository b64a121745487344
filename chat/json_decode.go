package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ErrBadMessage marks a message the decoder refuses: every *MessageError
// matches it with errors.Is.
var ErrBadMessage = errors.New("chat: bad message")

// MessageError is a message the decoder refuses, with the field at fault
// (a JSON path inside the message, such as "tool_calls[0].args") and why.
// Decoding a list of messages (a field's value, through package state)
// adds the message's index in front.
type MessageError struct {
	Field  string
	Reason string
}

func (e *MessageError) Error() string {
	if e.Field == "" {
		return "chat: bad message: " + e.Reason
	}
	return fmt.Sprintf("chat: bad message: field %q: %s", e.Field, e.Reason)
}

// Is makes every MessageError match ErrBadMessage.
func (e *MessageError) Is(target error) bool { return target == ErrBadMessage }

func bad(field, format string, args ...any) error {
	return &MessageError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DecodeMessages decodes a JSON list of messages in any form UnmarshalJSON
// accepts (a single message is a list of one), and names the index of the
// first one it refuses.
func DecodeMessages(data []byte) ([]Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] != '[' {
		var m Message
		if err := m.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		return []Message{m}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("chat: decode messages: %w", err)
	}
	out := make([]Message, len(raws))
	for i, r := range raws {
		if err := out[i].UnmarshalJSON(r); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return out, nil
}

// UnmarshalJSON decodes a message in any form LangGraph's server accepts:
//
//   - LangChain's dict, {"type": "human", "content": "hi", …} (Python's
//     message_to_dict data, @langchain/core's fields);
//   - OpenAI's {"role": "user"|"assistant"|"system"|"developer"|"tool",
//     "content": …, "tool_calls": [{"id", "function": {"name",
//     "arguments": "<JSON text>"}}], "tool_call_id": …};
//   - @langchain/core's serialised constructor, {"lc": 1, "type":
//     "constructor", "id": [..., "HumanMessage"], "kwargs": {…}};
//   - the stored-message form {"type": "human", "data": {…}};
//   - a string (a human message) and a [role, content] pair;
//   - this package's earlier {"id", "role", "parts"} form.
//
// What it cannot read exactly it refuses with a *MessageError naming the
// field, never decoding an empty or partial message.
func (m *Message) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return bad("", "empty")
	}
	switch data[0] {
	case '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return bad("", "%v", err)
		}
		*m = textMessage(llms.ChatMessageTypeHuman, s)
		return nil
	case '[':
		var pair []json.RawMessage
		if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
			return bad("", "a message as a list must be a [role, content] pair")
		}
		var role string
		if err := json.Unmarshal(pair[0], &role); err != nil {
			return bad("[0]", "the role of a [role, content] pair must be a string")
		}
		return m.fromDict(map[string]json.RawMessage{"role": pair[0], "content": pair[1]}, "")
	case '{':
		if m.decodeFast(data) {
			return nil
		}
	default:
		return bad("", "want a JSON object, a string or a [role, content] pair, got %s", kindOf(data))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return bad("", "%v", err)
	}
	switch {
	case obj["lc"] != nil && obj["kwargs"] != nil:
		return m.fromConstructor(obj)
	case obj["parts"] != nil && obj["role"] != nil && obj["content"] == nil:
		return m.fromLegacy(data)
	case obj["data"] != nil && obj["type"] != nil && obj["content"] == nil:
		var typ string
		if err := json.Unmarshal(obj["type"], &typ); err != nil {
			return bad("type", "want a string")
		}
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(obj["data"], &inner); err != nil || inner == nil {
			return bad("data", "want an object")
		}
		return m.fromDict(inner, typ)
	}
	return m.fromDict(obj, "")
}

// fromConstructor reads @langchain/core's serialised form: the class name
// ends the id path, the fields are kwargs.
func (m *Message) fromConstructor(obj map[string]json.RawMessage) error {
	var path []string
	if err := json.Unmarshal(obj["id"], &path); err != nil || len(path) == 0 {
		return bad("id", "a serialised constructor needs its class path")
	}
	class := strings.TrimSuffix(path[len(path)-1], "Chunk")
	types := map[string]string{"HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool", "RemoveMessage": "remove", "ChatMessage": "chat"}
	typ, ok := types[class]
	if !ok {
		return bad("id", "unknown message class %q (want HumanMessage, AIMessage, SystemMessage, ToolMessage, RemoveMessage or ChatMessage)", path[len(path)-1])
	}
	var kwargs map[string]json.RawMessage
	if err := json.Unmarshal(obj["kwargs"], &kwargs); err != nil || kwargs == nil {
		return bad("kwargs", "want an object")
	}
	delete(kwargs, "type")
	return m.fromDict(kwargs, typ)
}

// messageTypes maps the types and roles LangChain accepts to a role.
var messageTypes = map[string]llms.ChatMessageType{
	"human": llms.ChatMessageTypeHuman, "user": llms.ChatMessageTypeHuman,
	"ai": llms.ChatMessageTypeAI, "assistant": llms.ChatMessageTypeAI,
	"system": llms.ChatMessageTypeSystem, "developer": llms.ChatMessageTypeSystem,
	"tool":   llms.ChatMessageTypeTool,
	"remove": RoleRemove,
	"chat":   "",
}

// ignored are the keys of LangChain's dicts that carry nothing a Message
// keeps when they hold their defaults (null, false, an empty list).
var ignored = map[string]bool{"example": true, "artifact": true, "tool_call_chunks": true, "lc_serializable": true, "lc_kwargs": true, "lc_namespace": true}

// fromDict reads a message dict; typ, when not empty, is its type given
// from outside (the constructor's class, the stored form's type).
func (m *Message) fromDict(d map[string]json.RawMessage, typ string) error {
	field := "type"
	if typ == "" {
		// LangChain reads role before type.
		// A "chat" message has both: its role is its own.
		raw, ok := d["role"], true
		field = "role"
		if isNull(raw) || bytes.Equal(bytes.TrimSpace(d["type"]), []byte(`"chat"`)) {
			raw, ok = d["type"]
			field = "type"
		}
		if !ok || isNull(raw) {
			return bad("type", "missing: a message needs a type (human, ai, system, tool, remove) or a role (user, assistant, system, developer, tool)")
		}
		if err := json.Unmarshal(raw, &typ); err != nil {
			return bad(field, "want a string, got %s", kindOf(raw))
		}
		delete(d, "type")
		if field == "role" {
			delete(d, "role")
		}
	}
	role, ok := messageTypes[typ]
	if !ok {
		return bad(field, "unknown message type %q (want human, user, ai, assistant, system, developer, tool or remove)", typ)
	}
	out := Message{Role: role}
	if typ == "chat" {
		if err := str(d, "role", &out.Role); err != nil {
			return err
		}
		if out.Role == "" {
			return bad("role", "a chat message needs a role")
		}
		delete(d, "role")
	}
	if err := str(d, "id", &out.ID); err != nil {
		return err
	}
	if err := str(d, "name", &out.Name); err != nil {
		return err
	}
	if role == RoleRemove {
		if out.ID == "" {
			return bad("id", "a remove message needs the id of the message it removes")
		}
		*m = Message{ID: out.ID, Role: RoleRemove}
		return nil
	}
	parts, reasoning, err := decodeContent(d["content"])
	if err != nil {
		return err
	}
	out.Reasoning = reasoning
	delete(d, "content")
	if err := decodeKwargs(d, &out); err != nil {
		return err
	}
	if typ == "developer" {
		if out.AdditionalKwargs == nil {
			out.AdditionalKwargs = map[string]json.RawMessage{}
		}
		out.AdditionalKwargs["__openai_role__"] = json.RawMessage(`"developer"`)
	}
	switch role {
	case llms.ChatMessageTypeTool:
		resp := llms.ToolCallResponse{Name: out.Name}
		out.Name = ""
		if err := str(d, "tool_call_id", &resp.ToolCallID); err != nil {
			return err
		}
		if resp.ToolCallID == "" {
			return bad("tool_call_id", "missing: a tool message answers a tool call by its id")
		}
		if err := str(d, "status", &out.Status); err != nil {
			return err
		}
		if out.Status != "" && out.Status != StatusSuccess && out.Status != StatusError {
			return bad("status", "unknown status %q (want success or error)", out.Status)
		}
		if out.Status == StatusSuccess {
			out.Status = "" // the default
		}
		if len(parts) > 0 {
			if t, ok := parts[0].(llms.TextContent); ok {
				resp.Content, parts = t.Text, parts[1:]
			}
		}
		out.Parts = append([]llms.ContentPart{resp}, parts...)
	case llms.ChatMessageTypeAI:
		calls, err := decodeToolCalls(d)
		if err != nil {
			return err
		}
		out.Parts = mergeCalls(parts, calls)
		if err := decodeInvalidCalls(d["invalid_tool_calls"], &out); err != nil {
			return err
		}
	default:
		for _, k := range []string{"tool_calls", "tool_call_id"} {
			if raw, ok := d[k]; ok && !isNull(raw) && !bytes.Equal(raw, []byte("[]")) {
				return bad(k, "a %s message cannot have %s", typ, k)
			}
		}
		for _, p := range parts {
			if _, ok := p.(llms.ToolCall); ok {
				return bad("content", "a %s message cannot hold a tool_use block", typ)
			}
		}
		out.Parts = parts
	}
	for _, k := range []string{"tool_calls", "tool_call_chunks", "invalid_tool_calls", "tool_call_id", "status", "id", "name"} {
		delete(d, k)
	}
	// What is left goes to additional_kwargs, as LangChain does with the
	// keys of a dict it does not know.
	for k, v := range d {
		if isNull(v) || (ignored[k] && (bytes.Equal(v, []byte("false")) || bytes.Equal(v, []byte("[]")) || bytes.Equal(v, []byte("{}")))) {
			continue
		}
		if out.AdditionalKwargs == nil {
			out.AdditionalKwargs = map[string]json.RawMessage{}
		}
		out.AdditionalKwargs[k] = compactRaw(v)
	}
	*m = out
	return nil
}

// decodeKwargs reads additional_kwargs, response_metadata and
// usage_metadata into out and deletes them from d.
func decodeKwargs(d map[string]json.RawMessage, out *Message) error {
	for _, f := range []struct {
		key string
		dst *map[string]json.RawMessage
	}{{"additional_kwargs", &out.AdditionalKwargs}, {"response_metadata", &out.ResponseMetadata}} {
		raw := d[f.key]
		delete(d, f.key)
		if isNull(raw) {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return bad(f.key, "want an object, got %s", kindOf(raw))
		}
		if len(obj) == 0 {
			continue
		}
		for k, v := range obj {
			obj[k] = compactRaw(v)
		}
		*f.dst = obj
	}
	if raw := d["usage_metadata"]; !isNull(raw) {
		var u Usage
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&u); err != nil {
			return bad("usage_metadata", "want an object of token counts: %v", err)
		}
		out.Usage = &u
	}
	delete(d, "usage_metadata")
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// str reads the string at key of d into dst (null or missing leave it).
func str[T ~string](d map[string]json.RawMessage, key string, dst *T) error {
	raw, ok := d[key]
	if !ok || isNull(raw) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return bad(key, "want a string, got %s", kindOf(raw))
	}
	*dst = T(s)
	return nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// kindOf names the JSON kind of raw, for errors.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func compactRaw(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
