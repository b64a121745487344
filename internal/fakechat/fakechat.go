// Package fakechat is a local server that speaks enough of OpenAI's
// chat-completions protocol for langchaingo's openai client, with scripted
// replies, so tests drive the real client without a network or a key.
package fakechat

import (
	"encoding/json"
	"fmt"
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
//
// Status, when set to anything but 200, makes the rule answer with that
// status code and an OpenAI-style error body instead of Reply, with a
// Retry-After header when RetryAfter is set (its value as sent, "1" or an
// HTTP date). Hang makes the rule never answer: the request is held until
// the client gives up (its context is cancelled) or the server closes.
type Rule struct {
	Marker     string
	Reply      string
	Once       bool
	Status     int
	RetryAfter string
	Hang       bool
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

	script[Rule]
	hangs chan struct{} // closed by Close: releases hanging requests
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
	s := &Server{opts: opts, script: newScript(rules), hangs: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() { close(s.hangs) })
		s.Close()
	})
	return s
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
	rule, ok := s.take(string(body))
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted reply","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	if rule.Hang {
		select {
		case <-r.Context().Done():
		case <-s.hangs:
		}
		return
	}
	if rule.Status != 0 && rule.Status != http.StatusOK {
		if rule.RetryAfter != "" {
			w.Header().Set("Retry-After", rule.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rule.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("scripted status %d", rule.Status), "type": "server_error"}})
		return
	}
	reply := rule.Reply
	if strings.Contains(string(body), `"stream":true`) {
		s.stream(w, reply)
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

// stream answers a streaming request as OpenAI does: server-sent events,
// the reply in chunks of a few words (Chunks splits it), then a chunk with
// the finish reason, one with the usage, and [DONE].
func (s *Server) stream(w http.ResponseWriter, reply string) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1717462800, "model": "test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	for i, c := range Chunks(reply) {
		d := map[string]any{"content": c}
		if i == 0 {
			d["role"] = "assistant"
		}
		send(chunk(d, nil))
	}
	send(chunk(map[string]any{}, "stop"))
	send(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1717462800, "model": "test", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": s.opts.PromptTokens, "completion_tokens": s.opts.CompletionTokens,
			"total_tokens": s.opts.PromptTokens + s.opts.CompletionTokens}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Chunks splits a reply as the server streams it: three words a chunk,
// each with the space that follows it.
func Chunks(reply string) []string {
	var out []string
	words := strings.SplitAfter(reply, " ")
	for i := 0; i < len(words); i += 3 {
		out = append(out, strings.Join(words[i:min(i+3, len(words))], ""))
	}
	return out
}
