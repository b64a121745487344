package nodes_test

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms/openai"
)

// The replies a model would give for the delivery case.
const (
	deliveryPlanReply = "Here is the plan:\n```json\n" + `{
  "goal": "O1001 before Friday",
  "steps": [
    {"id": "order", "description": "Look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}, "depends_on": []},
    {"id": "stock_a", "description": "Check stock at the order's warehouse", "tool": "stock_check",
     "input": {"warehouse": "{{order.result.warehouse}}", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
    {"id": "deliver_a", "description": "Arrange delivery from the order's warehouse", "tool": "shipping_quote",
     "input": {"order_id": "{{order.result.order_id}}", "warehouse": "{{order.result.warehouse}}", "method": "standard"}, "depends_on": ["order", "stock_a"]},
    {"id": "answer", "description": "Answer with the evidence", "tool": "", "input": {}, "depends_on": ["deliver_a"]}
  ]
}` + "\n```"
	deliveryReplanReply = `{"goal": "O1001 before Friday", "steps": [
    {"id": "b_stock", "description": "Check stock at warehouse B", "tool": "stock_check", "input": {"warehouse": "B", "sku": "{{order.result.sku}}"}, "depends_on": ["order"]},
    {"id": "b_express", "description": "Quote express from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "express"}, "depends_on": ["order"]},
    {"id": "b_standard", "description": "Quote standard from B", "tool": "shipping_quote", "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "standard"}, "depends_on": ["order"]},
    {"id": "recommend", "description": "Recommend an alternative", "tool": "", "input": {}, "depends_on": ["b_stock", "b_express", "b_standard"]}
  ]}`
	deliveryAnswerReply = "Warehouse A cannot make it: no stock, restock Saturday 10:00, so delivery would be next Monday 18:00.\n" +
		"Express from B (Thursday 18:00) costs 35 extra, over the cap of 20: excluded.\n" +
		"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00. Confirm by Tuesday 16:00.\n" +
		"Nothing was changed."
)

func TestAgentDeliveryThroughOpenAIClient(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"))
	require.NoError(t, err)

	c := delivery.New()
	ts := c.Tools()
	app := compileAgent(t, nodes.AgentConfig{
		Model: llm, Tools: ts, Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(ts)},
		Budget: nodes.Budget{MaxModelCalls: 10, MaxToolCalls: 20, MaxReplans: 2},
	}, nil, nodes.WithRoundByRound())
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 3, "planner, replanner, responder: one call each")
	require.Contains(t, reqs[0], "order_lookup", "the planner is shown the tools")
	require.Contains(t, reqs[0], "extra total cost at most 20", "and the constraints")
	require.Contains(t, reqs[1], "succeeded and showed the route is blocked")
	require.Contains(t, reqs[1], "lost its premise")
	require.Contains(t, reqs[2], "shipping_quote B express: arrives Thursday 18:00, extra 35")
	require.Contains(t, reqs[2], "finding: excluded: extra cost 35 \\u003e 20 (the cap)", "the responder sees why express is excluded")
	require.Contains(t, reqs[2], "the route is blocked: warehouse A has no stock")

	// The model's plan ran; the blocked premise led to the model's revision.
	require.Len(t, out.Decisions, 4)
	require.Equal(t, nodes.ActionRevise, out.Decisions[1].Action)
	require.Equal(t, "adaptive:partial:model", out.Decisions[1].Info.Strategy)
	require.Equal(t, []string{"order", "stock_a", "b_stock", "b_express", "b_standard", "recommend"}, stepIDs(out.Plan))
	require.Equal(t, c.Goal(), out.Plan.Goal, "the request's goal, whatever the model wrote")
	require.Equal(t, c.Constraints(), out.Plan.Constraints)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))

	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.True(t, out.Response.Complete)
	require.Equal(t, 3, out.Usage.ModelCalls)
	require.Equal(t, 5, out.Usage.ToolCalls)
	require.Equal(t, 360, out.Usage.TotalTokens, "tokens as the server reported them")
	require.Equal(t, 300, out.Usage.PromptTokens)
}

func TestTheResponderPromptShowsEachToolOutputOnce(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	app, c := agentOn(t, srv, nodes.Budget{})
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	prompt := srv.Requests()[2]
	for _, output := range []string{`\"status\":\"not shipped\"`, `\"available\":4`, `\"extra_cost\":35`, `\"extra_cost\":10`} {
		require.Equal(t, 1, strings.Count(prompt, output), "%s once in the responder's prompt", output)
	}
	for _, evidence := range []string{"stock_check B: 4 available", "shipping_quote B standard: arrives Friday 16:00, extra 10"} {
		require.Equal(t, 1, strings.Count(prompt, evidence), "%s once", evidence)
	}
	require.Contains(t, prompt, "finding: excluded: extra cost 35 \\u003e 20 (the cap)", "findings that say more than the output stay")
	require.Less(t, len(prompt), 2600, "it was 3463 bytes")
}

// BenchmarkDeliveryScenarioThroughOpenAIClient runs the delivery case with
// a model (the fake server) planning, replanning and answering, and
// reports what the model was sent.
func BenchmarkDeliveryScenarioThroughOpenAIClient(b *testing.B) {
	srv := fakechat.New(b,
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"),
		openai.WithHTTPClient(nodes.HTTPClient(nil)))
	require.NoError(b, err)
	c := delivery.New()
	ts := c.Tools()
	agent, err := nodes.NewAgent(nodes.AgentConfig{Model: llm, Tools: ts, Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}})
	require.NoError(b, err)
	app, err := agent.Compile()
	require.NoError(b, err)
	for b.Loop() {
		out, err := app.Invoke(b.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.NoError(b, err)
		require.Equal(b, deliveryAnswerReply, out.Answer())
	}
	sent := 0
	for _, r := range srv.Requests() {
		sent += len(r)
	}
	b.ReportMetric(float64(sent)/float64(b.N), "request-bytes/op")
}
