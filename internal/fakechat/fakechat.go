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

// Options configure a Server.
type Options struct {
	// Key, when set, is the API key requests must carry.
	Key string
	// PromptTokens and CompletionTokens are the usage each reply reports
	// (100 and 20 when both are zero).
	PromptTokens, CompletionTokens int
}

// Server is the fake chat-completions server.
type Server struct {
	*httptest.Server
	opts Options

	mu     sync.Mutex
	rules  []Rule
	used   []bool
	bodies []string
}

// New starts a server with the rules and default options, closed when t
// ends.
func New(t testing.TB, rules ...Rule) *Server { return NewWith(t, Options{}, rules...) }

// NewWith starts a server with the options and rules, closed when t ends.
// The options are fixed before the server starts serving.
func NewWith(t testing.TB, opts Options, rules ...Rule) *Server {
	t.Helper()
	if opts.PromptTokens == 0 && opts.CompletionTokens == 0 {
		opts.PromptTokens, opts.CompletionTokens = 100, 20
	}
	s := &Server{opts: opts, rules: rules, used: make([]bool, len(rules))}
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
	if s.opts.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Key {
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
		"usage": map[string]any{"prompt_tokens": s.opts.PromptTokens, "completion_tokens": s.opts.CompletionTokens,
			"total_tokens": s.opts.PromptTokens + s.opts.CompletionTokens},
	})
}
