package server

import (
	"bytes"
	"encoding/json"
	"strings"
)

// LangGraph's messages-tuple stream: each event is [message chunk,
// metadata]. A model's tokens are AIMessageChunks with the id of the
// message they become; when the task ends, the messages it wrote that
// were not streamed whole come too — an AI message as one AIMessageChunk
// with its tool_call_chunks, a tool message as it is — and a streamed AI
// message with tool calls gets a last chunk holding their
// tool_call_chunks, so the chunks of an id add up to the message.

// chunkMessage is an AIMessageChunk in LangChain's dict form.
func chunkMessage(id, content string, calls []toolCallChunk) map[string]any {
	if calls == nil {
		calls = []toolCallChunk{}
	}
	return map[string]any{
		"type": "AIMessageChunk", "id": id, "content": content, "tool_calls": toolCallsOf(calls), "tool_call_chunks": calls,
		"invalid_tool_calls": []any{}, "additional_kwargs": map[string]any{}, "response_metadata": map[string]any{},
	}
}

// toolCallChunk is LangChain's ToolCallChunk: args as JSON text.
type toolCallChunk struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Args  string `json:"args"`
	Index int    `json:"index"`
	Type  string `json:"type"`
}

func toolCallsOf(chunks []toolCallChunk) []map[string]any {
	out := make([]map[string]any, 0, len(chunks))
	for _, c := range chunks {
		out = append(out, map[string]any{"id": c.ID, "name": c.Name, "args": json.RawMessage(c.Args), "type": "tool_call"})
	}
	return out
}

// wroteMessage is a message in a task's update, as LangChain's dict.
type wroteMessage struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Content   json.RawMessage
	ToolCalls []struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_calls"`
	raw json.RawMessage
}

var messageDictTypes = map[string]bool{"human": true, "ai": true, "system": true, "tool": true, "chat": true}

// messagesIn returns the messages of a task's update: the elements of
// its fields whose values are lists of LangChain message dicts.
func messagesIn(update json.RawMessage) []wroteMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(update, &fields) != nil {
		return nil
	}
	var out []wroteMessage
	for _, v := range fields {
		v = bytes.TrimSpace(v)
		if len(v) == 0 || v[0] != '[' {
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			continue
		}
		var msgs []wroteMessage
		for _, e := range elems {
			var m struct {
				wroteMessage
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(e, &m) != nil || !messageDictTypes[m.Type] || m.Content == nil {
				msgs = nil
				break
			}
			m.wroteMessage.Content, m.wroteMessage.raw = m.Content, e
			msgs = append(msgs, m.wroteMessage)
		}
		out = append(out, msgs...)
	}
	return out
}

// textOf is a message's content as text: the string, or the text blocks
// of a list joined.
func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// finishTuples sends, for messages-tuple, what a finished task wrote that
// its streamed chunks did not carry. streamed holds the ids of the
// messages the task streamed tokens of.
func (c *converter) finishTuples(ev Event, streamed map[string]bool) {
	if !c.want["messages-tuple"] || ev.Task == nil || ev.Task.Err != nil {
		return
	}
	meta := c.messageMeta(ev)
	for _, m := range messagesIn(ev.Update) {
		var calls []toolCallChunk
		for i, tc := range m.ToolCalls {
			calls = append(calls, toolCallChunk{ID: tc.ID, Name: tc.Name, Args: string(tc.Args), Index: i, Type: "tool_call_chunk"})
		}
		switch {
		case streamed[m.ID]:
			if len(calls) > 0 {
				c.emit("messages", ev.Namespace, []any{chunkMessage(m.ID, "", calls), meta})
			}
		case m.Type == "ai":
			c.emit("messages", ev.Namespace, []any{chunkMessage(m.ID, textOf(m.Content), calls), meta})
		default:
			c.emit("messages", ev.Namespace, []any{m.raw, meta})
		}
	}
}

// completeMessages sends, for the messages mode, the messages of a state
// (its "messages" field) not yet sent complete in this run, as
// messages/complete: LangGraph's server sends each message of every
// state it streams once so, whole (type, content, tool calls, ids), the
// thread's earlier messages with the run's first state. A message a
// finished task streamed that the state does not hold (a graph without
// a messages field) is sent complete as it streamed, an AI message of
// its text.
func (c *converter) completeMessages(ns string, values json.RawMessage) {
	if !c.want["messages"] {
		return
	}
	defer func() {
		for _, m := range c.streamed[ns] {
			if !c.completed[ns+"\x00"+m.id] {
				c.completed[ns+"\x00"+m.id] = true
				c.emit("messages/complete", ns, []any{aiMessage(m.id, m.content, "ai")})
			}
		}
		delete(c.streamed, ns)
	}()
	var st struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(values, &st) != nil {
		return
	}
	var fresh []json.RawMessage
	for _, raw := range st.Messages {
		var m struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &m) != nil || m.ID == "" || c.completed[ns+"\x00"+m.ID] {
			continue
		}
		c.completed[ns+"\x00"+m.ID] = true
		fresh = append(fresh, raw)
	}
	if len(fresh) > 0 {
		c.emit("messages/complete", ns, fresh)
	}
}
