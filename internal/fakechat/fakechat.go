// Package fakechat is a local server that speaks enough of OpenAI's
// chat-completions protocol for langchaingo's openai client, with scripted
// replies, so tests drive the real client without a network or a key.
package fakechat

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Rule scripts a reply: a request whose body contains Marker ("" matches
// any) gets Reply. A rule with Once is used for one request only; rules
// are tried in order, so Once rules with an empty marker reply in turn.
type Rule struct {
	Marker string
	Reply  string
	Once   bool
}

// Server is the fake chat-completions server.
type Server struct {
	*httptest.Server
	// Key, when set, is the API key requests must carry.
	Key string
	// Usage is the token usage each reply reports.
	PromptTokens, CompletionTokens int

	mu     sync.Mutex
	rules  []Rule
	used   []bool
	bodies []string
}

// New starts a server with the rules, closed when t ends. It reports 100
// prompt and 20 completion tokens a reply unless told otherwise.
func New(t testing.TB, rules ...Rule) *Server {
	t.Helper()
	s := &Server{rules: rules, used: make([]bool, len(rules)), PromptTokens: 100, CompletionTokens: 20}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the bodies of the requests received, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	reply, ok := "", false
	for i, rule := range s.rules {
		if (rule.Once && s.used[i]) || !strings.Contains(string(body), rule.Marker) {
			continue
		}
		s.used[i] = true
		reply, ok = rule.Reply, true
		break
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted reply","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1717462800, "model": "test",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply},
		}},
		"usage": map[string]any{"prompt_tokens": s.PromptTokens, "completion_tokens": s.CompletionTokens,
			"total_tokens": s.PromptTokens + s.CompletionTokens},
	})
}
