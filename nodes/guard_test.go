package nodes_test

// The guards are part of what the model-backed planners check before they
// accept a plan: a guard's objection is a problem the model is asked again
// with, within MaxAttempts and the model-call budget, like a validation
// problem.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// changeOrderPlanReply is the delivery case planned with change_order, which
// the read-only guard refuses.
const changeOrderPlanReply = `{"goal": "O1001", "steps": [
	{"id": "order", "description": "Look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}, "depends_on": []},
	{"id": "switch", "description": "Move the order to warehouse B, standard shipping", "tool": "change_order",
	 "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "standard"}, "depends_on": ["order"]},
	{"id": "answer", "description": "Answer with the evidence", "tool": "", "input": {}, "depends_on": ["switch"]}]}`

const changeOrderRefusal = `step "switch": tool "change_order" changes things, but the request is query-only`

func TestLLMPlannerReasksWhenAGuardRefuses(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	m := &scriptedModel{replies: []string{changeOrderPlanReply, deliveryPlanReply}}
	req := c.Request()
	req.Guards = []plan.Guard{plan.ReadOnlyGuard(ts)}
	p, info, err := (&nodes.LLMPlanner{Model: m, Tools: ts}).Plan(t.Context(), req)
	require.NoError(t, err)
	require.Equal(t, []string{"order", "stock_a", "deliver_a", "answer"}, stepIDs(p))
	require.Equal(t, 2, info.Attempts)
	require.Equal(t, 2, info.ModelCalls)
	require.Len(t, info.Rejected, 1)
	require.Contains(t, info.Rejected[0], plan.Problem{StepID: "switch", Kind: plan.ProblemConstraint,
		Message: `tool "change_order" changes things, but the request is query-only`})
	require.NotContains(t, m.prompts[0], "previous plan was rejected")
	require.Contains(t, m.prompts[1], "Your previous plan was rejected. Fix every problem:\n- "+changeOrderRefusal)
	require.Contains(t, m.prompts[1], `"tool": "change_order"`, "the refused reply is shown")

	// Without guards in the request the same plan is accepted: the guards
	// are the caller's, not the planner's.
	m = &scriptedModel{replies: []string{changeOrderPlanReply}}
	p, _, err = (&nodes.LLMPlanner{Model: m, Tools: ts}).Plan(t.Context(), c.Request())
	require.NoError(t, err)
	require.Equal(t, []string{"order", "switch", "answer"}, stepIDs(p))
}

// The agent passes AgentConfig.Guards to its planner, whether it built the
// planner or was given one, directly or inside an AdaptivePlanner.
func TestAgentPlannerIsAskedAgainWhenAGuardRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(cfg *nodes.AgentConfig, m *scriptedModel)
	}{{
		name:  "built by the agent",
		setup: func(cfg *nodes.AgentConfig, m *scriptedModel) { cfg.Planner, cfg.Model = nil, m },
	}, {
		name: "given",
		setup: func(cfg *nodes.AgentConfig, m *scriptedModel) {
			cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
		},
	}, {
		name: "given inside an AdaptivePlanner",
		setup: func(cfg *nodes.AgentConfig, m *scriptedModel) {
			cfg.Planner = &nodes.AdaptivePlanner{Templates: &nodes.TemplatePlanner{Tools: cfg.Tools}, Model: &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := delivery.New()
			m := &scriptedModel{replies: []string{changeOrderPlanReply, deliveryPlanReply}}
			cfg := c.AgentConfig() // template replan and responder: no model calls
			tt.setup(&cfg, m)
			app := compileAgent(t, cfg, nil)
			out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
			require.NoError(t, err)
			require.Equal(t, 2, m.calls())
			require.Contains(t, m.prompts[1], changeOrderRefusal)
			require.Equal(t, 2, out.Usage.ModelCalls, "both planner calls are counted")
			require.Equal(t, []string{"order", "stock_a"}, stepIDs(out.Plan)[:2], "the second plan ran")
			require.Zero(t, c.Calls(delivery.ToolChangeOrder))
			require.True(t, out.Response.Complete)
		})
	}
}

func TestAgentPlannerThatInsistsIsRejectedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		budget int // MaxModelCalls
		calls  int
		is     error
	}{
		{name: "after MaxAttempts", budget: 30, calls: 3, is: nodes.ErrPlanRejected},
		{name: "when the model-call budget is spent first", budget: 2, calls: 2, is: nodes.ErrModelBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := delivery.New()
			m := &scriptedModel{replies: []string{changeOrderPlanReply, changeOrderPlanReply, changeOrderPlanReply, deliveryPlanReply}}
			cfg := c.AgentConfig()
			cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
			cfg.Budget.MaxModelCalls = tt.budget
			app := compileAgent(t, cfg, nil)
			_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
			require.ErrorIs(t, err, tt.is)
			require.Equal(t, tt.calls, m.calls())
			for _, tool := range []string{delivery.ToolOrderLookup, delivery.ToolStockCheck, delivery.ToolShippingQuote, delivery.ToolChangeOrder} {
				require.Zero(t, c.Calls(tool), "no tool runs before the plan is accepted: %s", tool)
			}
			if tt.is != nodes.ErrPlanRejected {
				return
			}
			var re *nodes.RejectedError
			require.True(t, errors.As(err, &re))
			require.Equal(t, 3, re.Attempts)
			require.Equal(t, []plan.Problem{{StepID: "switch", Kind: plan.ProblemConstraint,
				Message: `tool "change_order" changes things, but the request is query-only`}}, re.Problems)
			require.ErrorContains(t, err, "nodes: planner: plan rejected after 3 attempts: "+changeOrderRefusal)
		})
	}
}

// The model-backed replan strategies re-ask on a guard's refusal too, rather
// than handing the refused revision to CheckRevision.
func TestModelReplansReaskWhenAGuardRefuses(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		testTools("search")[0],
		tool.Func{ToolName: "write", ToolDescription: "writes a note", Mutates: true, Fn: func(context.Context, string) (string, error) { return "", nil }},
	}
	p := plan.Plan{Goal: "g", Steps: []plan.Step{done(st("a", "search", `"q"`), "ra", "ea"), {ID: "b", Description: "x", Tool: "search", Status: plan.StatusFailed, Error: "boom", DependsOn: []string{"a"}}}}
	req := nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerFailed, StepID: "b", Error: "boom"}, Tools: ts}
	const refusal = `step "w": tool "write" changes things, but the request is query-only`
	writes := `{"steps":[{"id":"w","description":"write it down","tool":"write","input":"x"},{"id":"z","description":"answer","tool":"","depends_on":["w"]}]}`
	searches := `{"steps":[{"id":"s","description":"search again","tool":"search","input":"q2"},{"id":"z","description":"answer","tool":"","depends_on":["s"]}]}`
	strategies := []struct {
		name string
		make func(m *scriptedModel) nodes.Replanner
	}{
		{"partial", func(m *scriptedModel) nodes.Replanner { return nodes.PartialReplan{Model: m} }},
		{"full", func(m *scriptedModel) nodes.Replanner {
			return nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}
		}},
	}
	for _, s := range strategies {
		t.Run(s.name+": accepted on the second attempt", func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{replies: []string{writes, searches}}
			np, info, err := nodes.Revise(t.Context(), s.make(m), req, plan.ReadOnlyGuard(ts))
			require.NoError(t, err)
			require.Equal(t, 2, info.ModelCalls)
			require.Equal(t, []string{"a", "s", "z"}, stepIDs(np))
			require.Contains(t, m.prompts[1], "- "+refusal)
		})
		t.Run(s.name+": rejected when the model insists", func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{replies: []string{writes, writes, writes}}
			_, info, err := nodes.Revise(t.Context(), s.make(m), req, plan.ReadOnlyGuard(ts))
			require.ErrorIs(t, err, nodes.ErrPlanRejected)
			require.ErrorContains(t, err, refusal)
			require.True(t, nodes.CannotRevise(err), "the next strategy may still try")
			require.Equal(t, 3, info.ModelCalls)
		})
	}
}

// A query-only run ("本次只查询并给建议", seed 003 §2.1/§7.2.1) never changes the
// order: the read-only guard holds inside ReAct steps too, so a model asking
// for change_order is refused and nothing is changed.
func TestReActStepCannotChangeTheOrder(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolChangeOrder, `{"order_id":"O1001","warehouse":"B","method":"standard"}`),
		{Content: "Switched the order to warehouse B."},
	}}
	cfg := c.AgentConfig()
	cfg.Planner = stepsPlanner(
		plan.Step{ID: "research", Description: "Find a way to get O1001 delivered before Friday 18:00"}, // no tool: ReAct
		plan.Step{ID: "answer", Description: "Answer", DependsOn: []string{"research"}},
	)
	app := compileAgent(t, cfg, nil, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil))
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder), "query only: change_order must never be called")
	for _, r := range out.Audit {
		require.NotEqual(t, delivery.ToolChangeOrder, r.Tool)
	}
}

// Seed 003 §2.1 / issue: "user constraints never relaxed", "nothing changed
// (query only)". AgentConfig.Guards check the first plan as they check
// revisions: a planner's plan that calls change_order never runs, and the
// case's answer says "Nothing was changed" only when the audit log agrees.
func TestGuardsApplyToTheFirstPlan(t *testing.T) {
	t.Parallel()
	const sneaky = `{"goal": "O1001", "steps": [
		{"id": "order", "description": "Look up the order", "tool": "order_lookup", "input": {"order_id": "O1001"}, "depends_on": []},
		{"id": "switch", "description": "Move the order to warehouse B, standard shipping", "tool": "change_order",
		 "input": {"order_id": "{{order.result.order_id}}", "warehouse": "B", "method": "standard"}, "depends_on": ["order"]},
		{"id": "answer", "description": "Answer with the evidence", "tool": "", "input": {}, "depends_on": ["switch"]}]}`
	c := delivery.New()
	m := &scriptedModel{replies: []string{sneaky, sneaky, sneaky}}
	cfg := c.AgentConfig()
	cfg.Planner = &nodes.LLMPlanner{Model: m, Tools: cfg.Tools}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.Zero(t, c.Calls(delivery.ToolChangeOrder), "query only: the first plan must be refused like a revision would be")
	if err == nil {
		require.NotContains(t, out.Answer(), "Nothing was changed")
	}
}

// A revision onto change_order is refused by the read-only guard, through the
// whole graph and not just Revise.
func TestRevisionOntoMutatingToolIsRefusedInTheGraph(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	cfg := c.AgentConfig()
	cfg.Replanner = nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) {
		return []plan.Step{
			{ID: "switch", Description: "move the order to B", Tool: delivery.ToolChangeOrder, Input: json.RawMessage(`{"warehouse":"B"}`)},
			{ID: "done", Description: "answer", DependsOn: []string{"switch"}},
		}, nil
	}}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Contains(t, out.Blocked, `tool "change_order" changes things, but the request is query-only`)
	require.False(t, out.Response.Complete)
	require.Contains(t, out.Answer(), "Warehouse A cannot make it", "what was found is still reported")
	require.Contains(t, out.Answer(), "Stopped early: ")
}

// The guards check a ReAct step's tool call with its input, as they check a
// plan step: a call a guard refuses for that input is not made.
func TestReActCallIsCheckedByTheGuardsWithItsInput(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	noExpress := func(p plan.Plan) []plan.Problem {
		var probs []plan.Problem
		for _, s := range p.Steps {
			var in struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(s.Input, &in)
			if s.Tool == delivery.ToolShippingQuote && in.Method == "express" {
				probs = append(probs, plan.Problem{StepID: s.ID, Kind: plan.ProblemConstraint, Message: "express is not allowed"})
			}
		}
		return probs
	}
	expressStep := plan.Step{ID: "x", Description: "quote", Tool: delivery.ToolShippingQuote,
		Input: json.RawMessage(`{"order_id":"O1001","warehouse":"B","method":"express"}`)}
	require.NotEmpty(t, noExpress(plan.Plan{Steps: []plan.Step{expressStep}}), "as a plan step it is refused")

	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolShippingQuote, `{"order_id":"O1001","warehouse":"B","method":"express"}`),
		{Content: "express quoted"},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: ts, Guards: []plan.Guard{noExpress}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "research", Description: "quote B"}, nil)
	require.Zero(t, c.Calls(delivery.ToolShippingQuote), "the refused call is not made")
	require.Empty(t, out.Audit)
}

func TestReActGuardsHideAndRefuseTools(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolChangeOrder, `{"order_id":"O1001"}`),
		{Content: "I may not change the order."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: ts, Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "research", Description: "get O1001 there in time"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Empty(t, out.Audit, "a refused call is not a tool call")
	var offered []string
	for _, d := range m.tools[0] {
		offered = append(offered, d.Function.Name)
	}
	require.Equal(t, []string{delivery.ToolOrderLookup, delivery.ToolStockCheck, delivery.ToolShippingQuote}, offered, "the refused tool is not offered")
	answer := m.calls[1][3].Parts[0].(llms.ToolCallResponse)
	require.Contains(t, answer.Content, `tool "change_order" refused, not called: tool "change_order" changes things, but the request is query-only`)
}
