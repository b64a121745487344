package chat

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// fastDict is the message dict MarshalJSON writes for the common messages
// (no metadata, string content): decodeFast reads it in one pass by hand
// (parseFastDict), where the general decoder goes through a map of every
// key and encoding/json's reflection. Anything else, and
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

// The keys decodeFast reads, exactly (encoding/json would also match them
// in another case, which LangChain does not).
var (
	fastKeys     = []string{"type", "content", "id", "name", "tool_calls", "tool_call_id", "status"}
	fastCallKeys = []string{"id", "name", "args", "type"}
)

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at data[i]
// (a quote), or -1.
func skipString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at data[i],
// or -1.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				if j = skipString(data, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' && data[j] != '\n' && data[j] != '\t' && data[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// decodeFast decodes data into m when it is a plain dict fastDict covers,
// and reports whether it did.
func (m *Message) decodeFast(data []byte) bool {
	var d fastDict
	if !parseFastDict(data, &d) {
		return false
	}
	var text string
	if len(d.Content) > 0 && !isNullRaw(d.Content) {
		var ok bool
		if text, ok = fastString(d.Content); !ok {
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

// parseFastDict reads data, a JSON object of fastKeys only, into d
// without encoding/json's reflection: string fields as strings (or null),
// content as its raw value, tool_calls as a list of objects of
// fastCallKeys whose args are a valid JSON object. It reports false,
// for the general decoder to read data, on anything else: another key, a
// key twice or escaped, a value of another kind, bytes after the object.
func parseFastDict(data []byte, d *fastDict) bool {
	var seen [7]bool
	ok := eachMember(data, func(key, val []byte) bool {
		name, ok := claimKey(fastKeys, seen[:], key)
		if !ok {
			return false
		}
		switch name {
		case "content":
			d.Content = val
			return true
		case "tool_calls":
			return parseFastCalls(val, d)
		}
		str, ok := fastStringOrNull(val)
		switch name {
		case "type":
			d.Type = str
		case "id":
			d.ID = str
		case "name":
			d.Name = str
		case "tool_call_id":
			d.ToolCallID = str
		case "status":
			d.Status = str
		}
		return ok
	})
	return ok
}

// claimKey returns the one of names that key is, marking it in seen (one
// flag per name), or false when key is none of them or was seen before.
func claimKey(names []string, seen []bool, key []byte) (string, bool) {
	for i, name := range names {
		if string(key) == name {
			if seen[i] {
				return "", false
			}
			seen[i] = true
			return name, true
		}
	}
	return "", false
}

// parseFastCalls reads a tool_calls list (or null) into d.
func parseFastCalls(val []byte, d *fastDict) bool {
	if isNullRaw(val) {
		return true
	}
	if len(val) < 2 || val[0] != '[' {
		return false
	}
	i := skipSpace(val, 1)
	if val[i] == ']' {
		return i == len(val)-1
	}
	for i < len(val) {
		end := skipValue(val, i)
		if end < 0 {
			return false
		}
		var c fastCall
		var seen [4]bool
		if !eachMember(val[i:end], func(key, v []byte) bool {
			name, ok := claimKey(fastCallKeys, seen[:], key)
			if !ok {
				return false
			}
			if name == "args" {
				c.Args = v
				return isNullRaw(v) || json.Valid(v)
			}
			str, ok := fastStringOrNull(v)
			switch name {
			case "id":
				c.ID = str
			case "name":
				c.Name = str
			case "type":
				c.Type = str
			}
			return ok
		}) {
			return false
		}
		if isNullRaw(c.Args) {
			c.Args = nil
		}
		d.ToolCalls = append(d.ToolCalls, c)
		i = skipSpace(val, end)
		if i >= len(val) {
			return false
		}
		switch val[i] {
		case ',':
			i = skipSpace(val, i+1)
		case ']':
			return i == len(val)-1
		default:
			return false
		}
	}
	return false
}

// eachMember calls fn with each key and value of obj, a JSON object (and
// nothing after it but space), in order, and reports false when obj is
// not one or fn returns false. Keys with escapes are not read (false).
func eachMember(obj []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return skipSpace(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return false
		}
		end := skipString(obj, i)
		if end < 0 {
			return false
		}
		key := obj[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vend := skipValue(obj, i)
		if vend < 0 || !fn(key, obj[i:vend]) {
			return false
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return skipSpace(obj, i+1) == len(obj)
		default:
			return false
		}
	}
	return false
}

// fastStringOrNull reads a JSON string ("" for null).
func fastStringOrNull(raw []byte) (string, bool) {
	if isNullRaw(raw) {
		return "", true
	}
	return fastString(raw)
}

// fastString reads a JSON string: without escapes, control bytes or
// invalid UTF-8 its bytes are the string; otherwise encoding/json reads
// it.
func fastString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, b := range inner {
		if b == '\\' || b == '"' || b < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func isNullRaw(raw []byte) bool { return string(raw) == "null" }
