package fakechat

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Turn scripts a reply that may ask for tool calls, for a TurnServer: a
// request whose body contains Marker ("" matches any) gets Content and
// ToolCalls. Turns are tried in order; a Once turn answers one request only,
// so Once turns with an empty marker reply in turn.
type Turn struct {
	Marker    string
	Content   string
	ToolCalls []ToolCall
	Once      bool
}

// ToolCall is a tool call a Turn's reply asks for: OpenAI's
// {"id", "type": "function", "function": {"name", "arguments"}}.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// TurnServer is a fake chat-completions server whose replies may carry tool
// calls (Server's rules reply with text only). It answers streaming
// requests too: the content in Chunks, then the tool calls in one chunk.
type TurnServer struct {
	*httptest.Server

	script[Turn]
}

// NewTurns starts a TurnServer with the turns, closed when t ends.
func NewTurns(t testing.TB, turns ...Turn) *TurnServer {
	t.Helper()
	s := &TurnServer{script: newScript(turns)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *TurnServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	turn, ok := s.take(string(body))
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted turn","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	calls := make([]map[string]any, len(turn.ToolCalls))
	for i, c := range turn.ToolCalls {
		calls[i] = map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	if strings.Contains(string(body), `"stream":true`) {
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-turn", "object": "chat.completion.chunk", "created": 1717462800, "model": "test",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		for _, c := range Chunks(turn.Content) {
			send(chunk(map[string]any{"content": c}, nil))
		}
		if len(calls) > 0 {
			send(chunk(map[string]any{"tool_calls": calls}, nil))
		}
		send(chunk(map[string]any{}, finish))
		send(map[string]any{"id": "chatcmpl-turn", "object": "chat.completion.chunk", "created": 1717462800, "model": "test", "choices": []any{}, "usage": usage})
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	msg := map[string]any{"role": "assistant", "content": turn.Content}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-turn", "object": "chat.completion", "created": 1717462800, "model": "test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   usage,
	})
}
