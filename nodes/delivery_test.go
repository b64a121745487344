package nodes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// pureRun is the agent loop in plain Go, as the graph will run it:
// planner → (execute ready steps → replan)* → respond.
type pureRun struct {
	Planner   nodes.Planner
	Executor  *nodes.Executor
	Replanner nodes.Replanner
	Responder nodes.Responder
	Tools     []tools.Tool
	Guards    []plan.Guard
	Budget    nodes.Budget
	Now       func() time.Time
}

type pureResult struct {
	Plan      plan.Plan
	Initial   plan.Plan
	Outcomes  []nodes.StepOutcome
	Decisions []nodes.Decision
	Rounds    [][]string // step ids run in each round
	Usage     nodes.Usage
	Response  nodes.Response
}

func (r pureRun) run(t *testing.T, req nodes.PlanRequest) pureResult {
	t.Helper()
	ctx := t.Context()
	now := r.Now
	if now == nil {
		now = time.Now
	}
	var res pureResult
	res.Usage.Start = now()
	p, info, err := r.Planner.Plan(ctx, req)
	require.NoError(t, err)
	res.Usage.ModelCalls += info.ModelCalls
	res.Initial = p
	var stop *nodes.StopReason
	var blocked string
	for range 50 {
		ready := p.Ready()
		var ids []string
		for _, s := range ready {
			ids = append(ids, s.ID)
		}
		res.Rounds = append(res.Rounds, ids)
		outs := r.Executor.RunSteps(ctx, ready, p.Results())
		progressed := nodes.Progressed(p, outs)
		p = nodes.ApplyOutcomes(p, outs...)
		res.Outcomes = append(res.Outcomes, outs...)
		res.Usage.ToolCalls += nodes.ToolCalls(outs)
		res.Usage = res.Usage.EndRound(progressed)
		d, err := nodes.ReplanRound(ctx, nodes.RoundInput{Plan: p, Outcomes: outs, Budget: r.Budget, Usage: res.Usage, Now: now()}, r.Replanner, r.Tools, r.Guards...)
		require.NoError(t, err)
		res.Decisions = append(res.Decisions, d)
		switch d.Action {
		case nodes.ActionContinue:
			continue
		case nodes.ActionRevise:
			p = *d.Plan
			res.Usage.Replans++
			res.Usage.ModelCalls += d.Info.ModelCalls
			continue
		case nodes.ActionStop:
			stop = d.Stop
		case nodes.ActionBlocked:
			blocked = d.Reason
		}
		break
	}
	res.Plan = p
	resp, err := r.Responder.Respond(ctx, nodes.RespondRequest{Plan: p, Outcomes: res.Outcomes, Stop: stop, Blocked: blocked})
	require.NoError(t, err)
	res.Response = resp
	return res
}

func deliveryAgent(c *delivery.Case) pureRun {
	ts := c.Tools()
	return pureRun{
		Planner:   &nodes.AdaptivePlanner{Templates: &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: ts}},
		Executor:  &nodes.Executor{Tools: ts, Checker: c.Checker()},
		Replanner: nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Template: c.ReplanTemplate}},
		Responder: c.Responder(),
		Tools:     ts,
		Guards:    []plan.Guard{plan.ReadOnlyGuard(ts)},
		Budget:    nodes.Budget{MaxToolCalls: 20, MaxModelCalls: 30, MaxReplans: 2, MaxWall: time.Minute},
	}
}

func TestDeliveryCaseEndToEnd(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	res := deliveryAgent(c).run(t, c.Request())

	// The initial plan: order → stock at A → deliver from A → answer, zero model calls.
	require.Equal(t, []string{"order", "stock_a", "deliver_a", "answer"}, stepIDs(res.Initial))
	require.Zero(t, res.Usage.ModelCalls)

	// Round 1 looks the order up, round 2 finds A blocked: the step succeeded.
	require.Equal(t, []string{"order"}, res.Rounds[0])
	require.Equal(t, []string{"stock_a"}, res.Rounds[1])
	stockA := outcomeOf(t, res.Outcomes, "stock_a")
	require.Equal(t, plan.StatusCompleted, stockA.Status)
	require.True(t, stockA.Blocked)
	require.Contains(t, stockA.BlockReason, "restocks Saturday 10:00")
	require.Contains(t, stockA.BlockReason, "next Monday 18:00")
	require.Equal(t, nodes.ActionRevise, res.Decisions[1].Action)
	require.Equal(t, nodes.TriggerBlocked, res.Decisions[1].Trigger.Kind)
	require.Equal(t, "adaptive:partial:template", res.Decisions[1].Info.Strategy)
	require.Equal(t, []string{"order", "stock_a"}, res.Decisions[1].Info.Kept)
	require.Equal(t, []string{"deliver_a", "answer"}, res.Decisions[1].Info.Removed)

	// Round 3 evaluates warehouse B: three independent steps in one round.
	require.Equal(t, []string{"b_stock", "b_express", "b_standard"}, res.Rounds[2])
	require.Equal(t, []string{"recommend"}, res.Rounds[3])
	require.Equal(t, nodes.ActionFinish, res.Decisions[len(res.Decisions)-1].Action)
	require.True(t, res.Plan.Done())
	require.Equal(t, 1, res.Usage.Replans)
	require.Equal(t, 5, res.Usage.ToolCalls)

	// The completed steps kept their evidence through the replan.
	kept, _ := res.Plan.Step("stock_a")
	require.Equal(t, plan.StatusCompleted, kept.Status)
	require.NotEmpty(t, kept.Evidence)
	require.Contains(t, kept.Evidence[0], "stock_check A: 0 available")

	// Never a side effect, never the original route's quote.
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Equal(t, 2, c.Calls(delivery.ToolShippingQuote))

	txt := res.Response.Text
	require.True(t, res.Response.Complete)
	for _, want := range []string{
		"Warehouse A cannot make it: no stock (0 available), restock Saturday 10:00, so delivery would be next Monday 18:00, after Friday 18:00.",
		"Evidence: stock_check A: 0 available, restock Saturday 10:00, earliest arrival next Monday 18:00",
		"warehouse B, express: arrives Thursday 18:00, extra 35 — excluded: extra cost 35 > 20 (the cap)",
		"warehouse B, standard: arrives Friday 16:00, extra 10 — candidate",
		"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00",
		"Confirm by Tuesday 16:00",
		"Nothing was changed",
	} {
		require.Contains(t, txt, want)
	}
	require.NotContains(t, txt, "Stopped early")
}

func TestDeliveryReplanRefusesMutatingTool(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	p, _, err := (&nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: ts}).Plan(t.Context(), c.Request())
	require.NoError(t, err)
	ex := &nodes.Executor{Tools: ts, Checker: c.Checker()}
	for _, id := range []string{"order", "stock_a"} {
		s, _ := p.Step(id)
		p = nodes.ApplyOutcomes(p, ex.Run(t.Context(), s, p.Results()))
	}
	// A replanner that "solves" it by changing the order violates "query only".
	sneaky := nodes.PartialReplan{Template: func(nodes.ReplanRequest) ([]plan.Step, error) {
		return []plan.Step{{ID: "switch", Description: "move the order to B", Tool: delivery.ToolChangeOrder, Input: []byte(`{"warehouse":"B"}`)},
			{ID: "done", Description: "answer", DependsOn: []string{"switch"}}}, nil
	}}
	req := nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "stock_a"}, Tools: ts}
	_, _, err = nodes.Revise(t.Context(), sneaky, req, plan.ReadOnlyGuard(ts))
	require.ErrorIs(t, err, nodes.ErrRevisionRejected)
	require.ErrorContains(t, err, `tool "change_order" changes things, but the request is query-only`)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
}

func TestDeliveryStopsOnToolBudgetAndSaysWhy(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	a := deliveryAgent(c)
	a.Budget = nodes.Budget{MaxToolCalls: 3}
	res := a.run(t, c.Request())
	last := res.Decisions[len(res.Decisions)-1]
	require.Equal(t, nodes.ActionStop, last.Action)
	require.Equal(t, nodes.BudgetToolCalls, last.Stop.Budget)
	require.False(t, res.Response.Complete)
	require.Contains(t, res.Response.Text, "Stopped early: nodes: stopped by budget max_tool_calls: used 5 of 3")
	require.Contains(t, res.Response.Text, "Not done: recommend")
	require.Contains(t, res.Response.Text, "Nothing was changed")
}

// Seed 003 §2.1: "如果 P2 确认原仓能够按时送达后面就可以直接整理安排和建议". When
// warehouse A can deliver in time there is nothing to replan, and the answer
// must say that the order arrives in time, by when, with the evidence.
func TestDeliveryOnTimeOriginalRouteIsTheAnswer(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	thursday := c.Now.Add(2*24*time.Hour + 9*time.Hour) // Thursday 18:00
	c.Stock["A"] = delivery.WarehouseStock{Warehouse: "A", SKU: "SKU-01", Available: 3}
	c.Quotes[0] = delivery.ShippingQuote{Warehouse: "A", Method: "standard", Arrives: thursday, ExtraCost: 0}
	app := compileAgent(t, c.AgentConfig(), nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Zero(t, out.Usage.Replans, "nothing to revise")
	require.Contains(t, out.Answer(), "Thursday 18:00", "the answer gives the expected arrival")
	require.NotContains(t, out.Answer(), "No alternative checked meets the deadline", "the order itself meets it")
}

// Seed 003 §4.4: "如果查过的方案都不满足要求可以给出'本次已核查的方案均不符合约束'的结论".
// When B's standard shipping costs more than the cap, no option is
// recommended: the cost constraint is not relaxed.
func TestDeliveryNoCandidateWithinTheCapIsSaid(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	c.Quotes[2].ExtraCost = 25 // B standard: over the cap of 20 too
	app := compileAgent(t, c.AgentConfig(), nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	txt := out.Answer()
	require.Contains(t, txt, "warehouse B, express: arrives Thursday 18:00, extra 35 — excluded: extra cost 35 > 20 (the cap)")
	require.Contains(t, txt, "warehouse B, standard: arrives Friday 16:00, extra 25 — excluded: extra cost 25 > 20 (the cap)")
	require.Contains(t, txt, "No alternative checked meets the deadline and the cost cap.")
	require.NotContains(t, txt, "Recommendation")
	require.Contains(t, txt, "Nothing was changed")
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
}

// The delivery case end to end with a model planning, revising and
// answering, and with the case's template responder: the findings and the
// recommendation are those of the offline run.
func TestDeliveryWithAModelReachesTheAnswer(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &scriptedModel{replies: []string{deliveryPlanReply, deliveryReplanReply}}
	cfg := c.AgentConfig()
	cfg.Model = m
	cfg.Planner, cfg.Replanner = nil, nil // keep the case's responder
	out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Nil(t, out.Stop)
	require.Empty(t, out.Blocked)
	ans := out.Answer()
	for _, want := range []string{
		"Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00",
		"Confirm by Tuesday 16:00",
		"warehouse B, express: arrives Thursday 18:00, extra 35 — excluded: extra cost 35 > 20 (the cap)",
		"Nothing was changed",
	} {
		require.Contains(t, ans, want)
	}
	require.True(t, out.Response.Complete)
	require.Equal(t, 2, out.Usage.ModelCalls)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.False(t, strings.Contains(ans, "Stopped early"))
}

func TestDeliveryAnswerSaysWhatWasChanged(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	p := deliveryPlan(t, c)
	req := nodes.RespondRequest{Plan: p, Audit: nodes.AuditLog{{StepID: "order", Tool: delivery.ToolOrderLookup, Status: nodes.AuditOK}}}
	txt, err := c.Responder().Format(req)
	require.NoError(t, err)
	require.Contains(t, txt, "Nothing was changed", "only read-only tools were called")

	req.Audit = append(req.Audit, nodes.AuditRecord{StepID: "switch", Tool: delivery.ToolChangeOrder, Status: nodes.AuditError})
	txt, err = c.Responder().Format(req)
	require.NoError(t, err)
	require.NotContains(t, txt, "Nothing was changed")
	require.Contains(t, txt, "Warning: step switch called change_order (error): the order may have been changed.")
}
