// Package deliverytest holds what the tests of the programs built on
// examples/internal/planexec share: a model's replies for the delivery
// case and the phrases its answer must reach.
package deliverytest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The replies a model would give for the delivery case, for a fake
// OpenAI server (internal/fakechat): a plan, a revision once warehouse A
// is blocked, and the answer.
const (
	PlanReply = "Here is the plan:\n```json\n" + `{"goal": "O1001 before Friday", "steps": [
  {"id": "order", "description": "Look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}},
  {"id": "stock_a", "description": "Check stock at the order's warehouse", "tool": "stock_check",
   "input": {"warehouse": "{{order.result.warehouse}}", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
  {"id": "deliver_a", "description": "Quote delivery from the order's warehouse", "tool": "shipping_quote",
   "input": {"order_id": "{{order.result.order_id}}", "warehouse": "{{order.result.warehouse}}", "method": "standard"}, "depends_on": ["order", "stock_a"]},
  {"id": "answer", "description": "Answer with the evidence", "depends_on": ["deliver_a"]}
]}` + "\n```"
	ReplanReply = `{"goal": "O1001 before Friday", "steps": [
  {"id": "b_stock", "description": "Check stock at warehouse B", "tool": "stock_check", "input": {"warehouse": "B", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
  {"id": "b_express", "description": "Quote express from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "express"}, "depends_on": ["order"]},
  {"id": "b_standard", "description": "Quote standard from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "standard"}, "depends_on": ["order"]},
  {"id": "recommend", "description": "Recommend an alternative", "depends_on": ["b_stock", "b_express", "b_standard"]}
]}`
	AnswerReply = "Warehouse A cannot make it: no stock, restock Saturday 10:00, so delivery would be next Monday 18:00.\n" +
		"Express from B (Thursday 18:00) costs 35 extra, over the cap of 20: excluded.\n" +
		"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00. Confirm by Tuesday 16:00.\n" +
		"Nothing was changed."
)

// Recommendation are the phrases the delivery case's answer must reach.
var Recommendation = []string{
	"Warehouse A cannot make it",
	"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00",
	"Confirm by Tuesday 16:00",
	"Nothing was changed",
}

// RequireRecommendation fails t unless out holds every phrase of
// Recommendation.
func RequireRecommendation(t testing.TB, out string) {
	t.Helper()
	for _, want := range Recommendation {
		require.Contains(t, out, want)
	}
}
