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
	raw  json.RawMessage // the call's own JSON, to check its keys
}

// UnmarshalJSON keeps the call's JSON beside its fields.
func (c *fastCall) UnmarshalJSON(data []byte) error {
	type plain fastCall
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*c = fastCall(p)
	c.raw = data
	return nil
}

// The keys decodeFast reads, exactly (encoding/json would also match them
// in another case, which LangChain does not).
var (
	fastKeys     = []string{"type", "content", "id", "name", "tool_calls", "tool_call_id", "status"}
	fastCallKeys = []string{"id", "name", "args", "type"}
)

// onlyKeys reports whether data, a JSON object, has no key but those of
// keys (exactly). It reads the top level only and gives up (false) on
// anything it does not expect; encoding/json checks the rest.
func onlyKeys(data []byte, keys []string) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := skipString(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		known := false
		for _, k := range keys {
			if string(key) == k {
				known = true
				break
			}
		}
		if !known {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		if i = skipValue(data, skipSpace(data, i+1)); i < 0 {
			return false
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

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
	if !onlyKeys(data, fastKeys) {
		return false
	}
	var d fastDict
	if json.Unmarshal(data, &d) != nil {
		return false
	}
	for _, c := range d.ToolCalls {
		if !onlyKeys(c.raw, fastCallKeys) {
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
