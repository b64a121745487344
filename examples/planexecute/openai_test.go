package main

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stretchr/testify/require"
)

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
	srv := fakechat.NewWith(t, fakechat.Options{Key: "test"}, // the client must send OPENAI_API_KEY
		fakechat.Rule{Marker: "You are a planner", Reply: planReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: replanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: answerReply},
	)
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-openai")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitOK, res.Code, res.Stderr)

	require.Contains(t, res.Stdout, "setup: OpenAI model test at "+srv.URL+" plans, replans and answers")
	require.Contains(t, res.Stdout, "REPLAN (adaptive:partial:model)")
	requireRecommendation(t, res.Stdout)
	require.Contains(t, res.Stdout, "5 tool calls (5 by this process), 3 model calls, 360 tokens")

	reqs := srv.Requests()
	require.Len(t, reqs, 3, "planner, replanner, responder: one call each")
	require.Contains(t, reqs[0], "order_lookup", "the planner is shown the tools")
	require.Contains(t, reqs[1], "lost its premise", "the replanner is told why")
	require.Contains(t, reqs[2], "shipping_quote B standard: arrives Friday 16:00, extra 10")
}

func TestModelErrorFailsTheRunAndSaysHowToRetry(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewWith(t, fakechat.Options{Key: "test"}) // no scripted replies: every request is refused
	cmd := command(t, t.TempDir(), "-model", "openai", "-thread", "t-refused")
	cmd.Env = env("OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=test")
	res := execute(t, cmd, "")
	require.Equal(t, exitFailed, res.Code)
	require.Contains(t, res.Stderr, `node "planner" failed`)
	require.Contains(t, res.Stderr, "no scripted reply")
	require.Equal(t, 1, strings.Count(res.Stdout+res.Stderr, "no scripted reply"), "the error is printed once")
	require.Equal(t, 1, strings.Count(res.Stderr, "nodes: "), "each prefix once: %s", res.Stderr)
	require.Contains(t, res.Stdout, "✗ planner")
	require.Contains(t, res.Stderr, "to retry what failed: go run ./examples/planexecute -resume -thread t-refused -model openai")
	require.NotContains(t, res.Stdout, "Recommendation")
}
