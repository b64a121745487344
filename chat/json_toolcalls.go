package chat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

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
