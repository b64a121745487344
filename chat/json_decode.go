package chat

import (
	"bytes"
	"encoding/base64"
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
	parts, err := decodeContent(d["content"])
	if err != nil {
		return err
	}
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

// decodeContent reads content: null or missing (no parts), a string (one
// text part unless empty) or a list of blocks.
func decodeContent(raw json.RawMessage) ([]llms.ContentPart, error) {
	if isNull(raw) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, bad("content", "%v", err)
		}
		if s == "" {
			return nil, nil
		}
		return []llms.ContentPart{llms.TextContent{Text: s}}, nil
	case '[':
	default:
		return nil, bad("content", "want a string or a list of content blocks, got %s", kindOf(raw))
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, bad("content", "%v", err)
	}
	parts := make([]llms.ContentPart, 0, len(blocks))
	for i, b := range blocks {
		p, err := decodeBlock(b)
		if err != nil {
			var me *MessageError
			if errors.As(err, &me) {
				me.Field = fmt.Sprintf("content[%d]", i) + dotted(me.Field)
			}
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func dotted(f string) string {
	if f == "" {
		return ""
	}
	return "." + f
}

// block is a content block in any of LangChain's forms.
type block struct {
	Type       string          `json:"type"`
	Text       *string         `json:"text"`
	ImageURL   json.RawMessage `json:"image_url"`
	SourceType string          `json:"source_type"`
	URL        string          `json:"url"`
	Data       string          `json:"data"`
	Base64     string          `json:"base64"`
	MIMEType   string          `json:"mime_type"`
	Source     *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// decodeBlock reads one content block: text, image_url, image (by URL or
// base64, in LangChain's standard form, its v1 form or Anthropic's),
// audio and file as base64 data, tool_use (read as a tool call), or a
// bare string (text).
func decodeBlock(raw json.RawMessage) (llms.ContentPart, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, bad("", "%v", err)
		}
		return llms.TextContent{Text: s}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, bad("", "want a content block object or a string, got %s", kindOf(raw))
	}
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, bad("", "%v", err)
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return nil, bad("text", "missing: a text block needs its text")
		}
		return llms.TextContent{Text: *b.Text}, nil
	case "image_url":
		if isNull(b.ImageURL) {
			return nil, bad("image_url", "missing")
		}
		var img struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		}
		if b.ImageURL[0] == '"' {
			if err := json.Unmarshal(b.ImageURL, &img.URL); err != nil {
				return nil, bad("image_url", "%v", err)
			}
		} else if err := json.Unmarshal(b.ImageURL, &img); err != nil {
			return nil, bad("image_url", "want a URL or {url, detail}: %v", err)
		}
		if img.URL == "" {
			return nil, bad("image_url.url", "missing")
		}
		return llms.ImageURLContent{URL: img.URL, Detail: img.Detail}, nil
	case "image", "audio", "file":
		return decodeData(b)
	case "tool_use":
		if b.Name == "" {
			return nil, bad("name", "missing: a tool_use block names its tool")
		}
		args := b.Input
		if isNull(args) {
			args = json.RawMessage("{}")
		}
		if !isObject(args) {
			return nil, bad("input", "want an object, got %s", kindOf(args))
		}
		return llms.ToolCall{ID: b.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: b.Name, Arguments: string(compactRaw(args))}}, nil
	case "":
		return nil, bad("type", "missing: a content block needs a type")
	}
	return nil, bad("type", "unknown content block type %q (want text, image_url, image, audio, file or tool_use)", b.Type)
}

// decodeData reads an image, audio or file block: base64 data becomes
// binary content, an image URL image-URL content.
func decodeData(b block) (llms.ContentPart, error) {
	data, mime, url := b.Data, b.MIMEType, b.URL
	if b.Base64 != "" { // v1 blocks
		data = b.Base64
	}
	if s := b.Source; s != nil { // Anthropic's blocks
		switch s.Type {
		case "base64":
			data, mime = s.Data, s.MediaType
		case "url":
			url = s.URL
		default:
			return nil, bad("source.type", "unknown source type %q (want base64 or url)", s.Type)
		}
	}
	switch {
	case data != "" && b.SourceType != "url":
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, bad("data", "not base64: %v", err)
		}
		if mime == "" {
			return nil, bad("mime_type", "missing: base64 data needs its MIME type")
		}
		return llms.BinaryContent{MIMEType: mime, Data: raw}, nil
	case url != "" && b.Type == "image":
		return llms.ImageURLContent{URL: url}, nil
	case url != "":
		return nil, bad("url", "a %s block by URL is not supported (send its data as base64)", b.Type)
	}
	return nil, bad("data", "missing: an %s block needs base64 data or a URL", b.Type)
}

// decodeToolCalls reads an AI message's tool_calls, in LangChain's form
// ({id, name, args}) or OpenAI's ({id, function: {name, arguments}}),
// and, when there are none, its tool_call_chunks (an AIMessageChunk's).
func decodeToolCalls(d map[string]json.RawMessage) ([]llms.ToolCall, error) {
	key := "tool_calls"
	raw := d[key]
	if isNull(raw) || bytes.Equal(raw, []byte("[]")) {
		key, raw = "tool_call_chunks", d["tool_call_chunks"]
		if isNull(raw) {
			return nil, nil
		}
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, bad(key, "want a list of tool call objects, got %s", kindOf(raw))
	}
	calls := make([]llms.ToolCall, 0, len(list))
	for i, c := range list {
		at := func(f string) string { return fmt.Sprintf("%s[%d].%s", key, i, f) }
		if c == nil {
			return nil, bad(fmt.Sprintf("%s[%d]", key, i), "want an object")
		}
		var id, name string
		if err := str(c, "id", &id); err != nil {
			return nil, bad(at("id"), "want a string")
		}
		args := c["args"]
		argsField := at("args")
		if fn, ok := c["function"]; ok && !isNull(fn) {
			var f map[string]json.RawMessage
			if err := json.Unmarshal(fn, &f); err != nil || f == nil {
				return nil, bad(at("function"), "want an object")
			}
			if err := str(f, "name", &name); err != nil {
				return nil, bad(at("function.name"), "want a string")
			}
			args, argsField = f["arguments"], at("function.arguments")
			if len(args) > 0 && args[0] == '"' {
				var s string
				_ = json.Unmarshal(args, &s)
				args = json.RawMessage(s)
			}
			if isNull(args) {
				args = json.RawMessage("{}")
			}
		} else {
			if err := str(c, "name", &name); err != nil {
				return nil, bad(at("name"), "want a string")
			}
			if key == "tool_call_chunks" && len(args) > 0 && args[0] == '"' {
				var s string
				_ = json.Unmarshal(args, &s)
				args = json.RawMessage(s)
			}
		}
		if name == "" {
			return nil, bad(at("name"), "missing: a tool call names its tool")
		}
		if !isObject(args) {
			return nil, bad(argsField, "want a JSON object of arguments, got %s", kindOf(args))
		}
		calls = append(calls, llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(compactRaw(args))}})
	}
	return calls, nil
}

// mergeCalls returns the content parts followed by the tool calls; a call
// a tool_use block of the content already holds (the same id) is not
// added twice, and the block's call takes tool_calls' arguments.
func mergeCalls(parts []llms.ContentPart, calls []llms.ToolCall) []llms.ContentPart {
	at := map[string]int{}
	out := make([]llms.ContentPart, 0, len(parts)+len(calls))
	for _, p := range parts {
		if c, ok := p.(llms.ToolCall); ok {
			if c.ID != "" {
				at[c.ID] = len(out)
			}
			continue // tool calls go after the content, as tool_calls
		}
		out = append(out, p)
	}
	var blockCalls []llms.ToolCall
	for _, p := range parts {
		if c, ok := p.(llms.ToolCall); ok {
			blockCalls = append(blockCalls, c)
		}
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if c.ID != "" {
			seen[c.ID] = true
		}
		out = append(out, c)
	}
	for _, c := range blockCalls {
		if c.ID == "" || !seen[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

func decodeInvalidCalls(raw json.RawMessage, out *Message) error {
	if isNull(raw) {
		return nil
	}
	var list []struct {
		ID    *string         `json:"id"`
		Name  *string         `json:"name"`
		Args  json.RawMessage `json:"args"`
		Error *string         `json:"error"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return bad("invalid_tool_calls", "want a list of {id, name, args, error}: %v", err)
	}
	for _, c := range list {
		ic := InvalidToolCall{ID: deref(c.ID), Name: deref(c.Name), Error: deref(c.Error)}
		if !isNull(c.Args) {
			if c.Args[0] == '"' {
				_ = json.Unmarshal(c.Args, &ic.Args)
			} else {
				ic.Args = string(c.Args)
			}
		}
		out.InvalidToolCalls = append(out.InvalidToolCalls, ic)
	}
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
