package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// chatServer is a local server speaking OpenAI's chat-completions
// protocol: it answers each request with the reply of the first rule whose
// marker the request's body contains, and records the bodies.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	rules  [][2]string // marker, reply
	bodies []string
}

func newChatServer(t *testing.T, rules ...[2]string) *chatServer {
	t.Helper()
	cs := &chatServer{rules: rules}
	cs.Server = httptest.NewServer(http.HandlerFunc(cs.handle))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer test" {
		http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	cs.mu.Lock()
	cs.bodies = append(cs.bodies, string(body))
	cs.mu.Unlock()
	for _, rule := range cs.rules {
		if strings.Contains(string(body), rule[0]) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"id": "chatcmpl-test", "object": "chat.completion", "created": 1717462800, "model": "test",
				"choices": []any{map[string]any{
					"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": rule[1]},
				}},
				"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
			})
			return
		}
	}
	http.Error(w, `{"error":{"message":"no scripted reply","type":"invalid_request_error"}}`, http.StatusBadRequest)
}

func (cs *chatServer) requests() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.bodies...)
}

// The replies a model would give for the delivery case: a plan, a
// revision once warehouse A is blocked, and the answer.
const (
	planReply = "Here is the plan:\n```json\n" + `{"goal": "O1001 before Friday", "steps": [
  {"id": "order", "description": "Look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}},
  {"id": "stock_a", "description": "Check stock at the order's warehouse", "tool": "stock_check",
   "input": {"warehouse": "{{order.result.warehouse}}", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
  {"id": "deliver_a", "description": "Quote delivery from the order's warehouse", "tool": "shipping_quote",
   "input": {"order_id": "{{order.result.order_id}}", "warehouse": "{{order.result.warehouse}}", "method": "standard"}, "depends_on": ["order", "stock_a"]},
  {"id": "answer", "description": "Answer with the evidence", "depends_on": ["deliver_a"]}
]}` + "\n```"
	replanReply = `{"goal": "O1001 before Friday", "steps": [
  {"id": "b_stock", "description": "Check stock at warehouse B", "tool": "stock_check", "input": {"warehouse": "B", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
  {"id": "b_express", "description": "Quote express from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "express"}, "depends_on": ["order"]},
  {"id": "b_standard", "description": "Quote standard from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "standard"}, "depends_on": ["order"]},
  {"id": "recommend", "description": "Recommend an alternative", "depends_on": ["b_stock", "b_express", "b_standard"]}
]}`
	answerReply = "Warehouse A cannot make it: no stock, restock Saturday 10:00, so delivery would be next Monday 18:00.\n" +
		"Express from B (Thursday 18:00) costs 35 extra, over the cap of 20: excluded.\n" +
		"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00. Confirm by Tuesday 16:00.\n" +
		"Nothing was changed."
)

func TestModelOpenAIAgainstALocalServer(t *testing.T) {
	t.Parallel()
	srv := newChatServer(t,
		[2]string{"You are a planner", planReply},
		[2]string{"You are revising a plan", replanReply},
		[2]string{"Answer the user's request", answerReply},
	)
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-openai")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitOK, res.code, res.stderr)

	require.Contains(t, res.stdout, "setup: OpenAI model test at "+srv.URL+" plans, replans and answers")
	require.Contains(t, res.stdout, "REPLAN (adaptive:partial:model)")
	requireRecommendation(t, res.stdout)
	require.Contains(t, res.stdout, "5 tool calls (5 by this process), 3 model calls, 360 tokens")

	reqs := srv.requests()
	require.Len(t, reqs, 3, "planner, replanner, responder: one call each")
	require.Contains(t, reqs[0], "order_lookup", "the planner is shown the tools")
	require.Contains(t, reqs[1], "lost its premise", "the replanner is told why")
	require.Contains(t, reqs[2], "shipping_quote B standard: arrives Friday 16:00, extra 10")
}

func TestModelErrorFailsTheRunAndSaysHowToRetry(t *testing.T) {
	t.Parallel()
	srv := newChatServer(t) // no scripted replies: every request is refused
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-refused")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitFailed, res.code)
	require.Contains(t, res.stderr, `node "planner" failed`)
	require.Contains(t, res.stderr, "no scripted reply")
	require.Contains(t, res.stderr, "to retry what failed: go run ./examples/planexecute -resume -thread t-refused -model openai")
	require.NotContains(t, res.stdout, "Recommendation")
}
