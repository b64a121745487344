package nodes_test

// Review tests: the seed documents' plan-and-execute requirements and the
// O1001 delivery case, checked against the agent. A test that fails because
// the agent is wrong is skipped with "BUG: …" so the suite stays green;
// remove the t.Skip line to see it fail.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// reviewDeliveryPlan is the delivery template's plan, built for the case.
func reviewDeliveryPlan(t *testing.T, c *delivery.Case) plan.Plan {
	t.Helper()
	p, err := c.Template().Build(c.Request())
	require.NoError(t, err)
	return nodes.NormalizeNew(p, c.Request())
}

// --- Query only: nothing may be changed -----------------------------------

// Seed 003 §2.1/§7.2.1: "本次只查询并给建议" and the final "尚未修改订单或锁定库存".
// The read-only guard is applied to revisions only; a ReAct step gets every
// tool of the agent, change_order included, and nothing stops the model
// from calling it.
func TestReviewReActStepCannotChangeTheOrder(t *testing.T) {
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
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
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
func TestReviewGuardsApplyToTheFirstPlan(t *testing.T) {
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
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.Zero(t, c.Calls(delivery.ToolChangeOrder), "query only: the first plan must be refused like a revision would be")
	if err == nil {
		require.NotContains(t, out.Answer(), "Nothing was changed")
	}
}

// The guard the agent does apply: a revision onto change_order is refused.
// (Coverage: the same guard through the whole graph, not just Revise.)
func TestReviewRevisionOntoMutatingToolIsRefusedInTheGraph(t *testing.T) {
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
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.NoError(t, err)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Contains(t, out.Blocked, `tool "change_order" changes things, but the request is query-only`)
	require.False(t, out.Response.Complete)
	require.Contains(t, out.Answer(), "Warehouse A cannot make it", "what was found is still reported")
	require.Contains(t, out.Answer(), "Stopped early: ")
}

// --- Finish only when the request is answered ------------------------------

// Seed 003 §4.4: "计划列表为空只表示没有剩余条目还需要检查有没有遗漏工作" — an empty
// remaining plan is not completion. A plan whose last step shows the route is
// blocked (here, with no answer step after the stock check) finishes at once:
// Decide checks Plan.Done before it looks for a blocked outcome.
func TestReviewBlockedRouteInTheLastRoundIsNotAFinish(t *testing.T) {
	t.Parallel()
	c := delivery.New()

	// Decide alone.
	p := reviewDeliveryPlan(t, c)
	p.Steps = p.Steps[:2] // order → stock_a, nothing after
	ex := &nodes.Executor{Tools: c.Tools(), Checker: c.Checker()}
	for _, id := range []string{"order", "stock_a"} {
		s, _ := p.Step(id)
		o := ex.Run(t.Context(), s, p.Results())
		p = nodes.ApplyOutcomes(p, o)
		if id == "stock_a" {
			require.True(t, o.Blocked)
			d := nodes.Decide(nodes.RoundInput{Plan: p, Outcomes: []nodes.StepOutcome{o}, Now: c.Now})
			require.Equal(t, nodes.ActionRevise, d.Action, d.Reason)
		}
	}

	// Through the graph: the user's alternatives are never looked for.
	c = delivery.New()
	cfg := c.AgentConfig()
	tmpl := c.Template()
	cfg.Planner = plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
		p, err := tmpl.Build(req)
		p.Steps = p.Steps[:2]
		return p, nodes.PlanInfo{Source: "test"}, err
	})
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.NoError(t, err)
	require.Contains(t, out.Answer(), "Recommendation: switch to warehouse B, standard shipping")
}

// Seed 003 §2.1: "如果 P2 确认原仓能够按时送达后面就可以直接整理安排和建议". When
// warehouse A can deliver in time there is nothing to replan, and the answer
// must say that the order arrives in time, by when, with the evidence.
func TestReviewOnTimeOriginalRouteIsTheAnswer(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	thursday := c.Now.Add(2*24*time.Hour + 9*time.Hour) // Thursday 18:00
	c.Stock["A"] = delivery.WarehouseStock{Warehouse: "A", SKU: "SKU-01", Available: 3}
	c.Quotes[0] = delivery.ShippingQuote{Warehouse: "A", Method: "standard", Arrives: thursday, ExtraCost: 0}
	app := compileAgent(t, c.AgentConfig(), nil)
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Zero(t, out.Usage.Replans, "nothing to revise")
	require.Contains(t, out.Answer(), "Thursday 18:00", "the answer gives the expected arrival")
	require.NotContains(t, out.Answer(), "No alternative checked meets the deadline", "the order itself meets it")
}

// Seed 003 §4.4: "如果查过的方案都不满足要求可以给出'本次已核查的方案均不符合约束'的结论".
// When B's standard shipping costs more than the cap, no option is
// recommended: the cost constraint is not relaxed.
func TestReviewNoCandidateWithinTheCapIsSaid(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	c.Quotes[2].ExtraCost = 25 // B standard: over the cap of 20 too
	app := compileAgent(t, c.AgentConfig(), nil)
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
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

// --- The step result package -------------------------------------------------

// Seed 003 §7.2.2: the P2 result package — status completed, conclusion,
// evidence (E1: restock Saturday 10:00, arrival next Monday 18:00) and the
// impact on the remaining plan — and "工具调用成功 / 当前步骤完成 / 原路线受阻"
// all at once, not a failure.
func TestReviewBlockedStockCheckIsACompleteResultPackage(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	p := reviewDeliveryPlan(t, c)
	ex := &nodes.Executor{Tools: c.Tools(), Checker: c.Checker()}
	order, _ := p.Step("order")
	p = nodes.ApplyOutcomes(p, ex.Run(t.Context(), order, p.Results()))
	stock, _ := p.Step("stock_a")
	o := ex.Run(t.Context(), stock, p.Results())

	require.Equal(t, plan.StatusCompleted, o.Status, "the tool call succeeded and the step is done")
	require.Empty(t, o.Err)
	require.Empty(t, o.ErrKind)
	require.True(t, o.Blocked, "the route is blocked")
	require.Equal(t, "warehouse A cannot deliver before Friday 18:00", o.Conclusion)
	require.Contains(t, o.BlockReason, "restocks Saturday 10:00")
	require.Contains(t, o.BlockReason, "next Monday 18:00")
	require.Contains(t, o.Impact, "evaluate other warehouses")
	require.Equal(t, []string{"stock_check A: 0 available, restock Saturday 10:00, earliest arrival next Monday 18:00"}, o.Evidence)
	require.Len(t, o.Audit, 1)
	require.Equal(t, `{"sku":"SKU-01","warehouse":"A"}`, o.Audit[0].Input, "the references were resolved from the order lookup")
	require.Equal(t, nodes.AuditOK, o.Audit[0].Status)

	// The trigger the replanner sees is "blocked", not "failed".
	d := nodes.Decide(nodes.RoundInput{Plan: nodes.ApplyOutcomes(p, o), Outcomes: []nodes.StepOutcome{o}, Now: c.Now})
	require.Equal(t, nodes.ActionRevise, d.Action)
	require.Equal(t, nodes.TriggerBlocked, d.Trigger.Kind)
	require.Contains(t, d.Reason, "succeeded and showed the route is blocked")
}

// Seed 003 §7.2.2 and §7.4: the inner ReAct executor returns the same result
// package, including "对剩余计划的影响". A ReAct step never reads a blocked
// verdict (neither the tool's JSON "blocked" nor the Checker), so a route
// found blocked inside a ReAct step never reaches the replanner.
func TestReviewReActStepReportsABlockedRoute(t *testing.T) {
	t.Parallel()
	stock := nodes.FuncTool{ToolName: "stock_check", ToolDescription: "stock",
		Fn: func(context.Context, string) (string, error) {
			return `{"blocked":true,"reason":"warehouse A has no stock until Saturday","impact":"evaluate other warehouses"}`, nil
		}}
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", "stock_check", `{"warehouse":"A","sku":"SKU-01"}`),
		{Content: "Warehouse A cannot ship before Saturday."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: []tools.Tool{stock}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "check_a", Description: "Can warehouse A deliver before Friday 18:00?"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.True(t, out.Blocked, "the step succeeded and showed the route is blocked")
	require.Contains(t, out.BlockReason, "no stock until Saturday")
	require.Equal(t, "evaluate other warehouses", out.Impact)
}

// --- Failure policy -------------------------------------------------------------

// Seed 001 PlanExecutor: on_failure "skip" — "步骤 N 失败，跳过" and the
// remaining steps go on. Here a skipped step keeps every step that depends on
// it (the answer step, always) pending forever: the run ends blocked.
func TestReviewSkipPolicyGoesOn(t *testing.T) {
	t.Parallel()
	var okCalls atomic.Int32
	ts := []tools.Tool{
		nodes.FuncTool{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
			return "", errors.New("service unavailable")
		}},
		nodes.FuncTool{ToolName: "work", ToolDescription: "works", Fn: func(context.Context, string) (string, error) {
			okCalls.Add(1)
			return "report written", nil
		}},
	}
	cfg := nodes.AgentConfig{Tools: ts, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureSkip},
		Planner: stepsPlanner(
			st("fetch", "flaky", `{}`),
			st("report", "work", `{}`, "fetch"),
			st("answer", "", "", "report"),
		)}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("write the report"))
	require.NoError(t, err)
	require.Equal(t, int32(1), okCalls.Load(), "the step after the skipped one runs")
	require.Empty(t, out.Blocked)
	require.Contains(t, out.Answer(), "service unavailable", "the skipped failure is reported")
}

// Issue/seed 003 §4.4: when key data was not found the answer must say so
// ("目前还不能判断"). A step skipped under OnFailureSkip counts as done:
// the response is Complete, Missing is empty and the generic answer never
// mentions the failure.
func TestReviewSkippedStepIsReportedAsMissing(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		nodes.FuncTool{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
			return "", errors.New("price service unavailable")
		}},
		nodes.FuncTool{ToolName: "work", ToolDescription: "works", Fn: func(context.Context, string) (string, error) {
			return "stock: 4", nil
		}},
	}
	cfg := nodes.AgentConfig{Tools: ts, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureSkip},
		Planner: stepsPlanner(
			st("price", "flaky", `{}`),
			st("stock", "work", `{}`),
			st("answer", "", "", "stock"),
		)}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("price and stock of SKU-01"))
	require.NoError(t, err)
	price, _ := out.Plan.Step("price")
	require.Equal(t, plan.StatusSkipped, price.Status)
	require.False(t, out.Response.Complete, "a step that failed and was skipped is missing work")
	require.Contains(t, out.Answer(), "price service unavailable")
}

// Seed 001: retry — "重试一次" then report; the retries are audit records
// with attempts 1..n and the step then goes to the replanner as failed.
// (Coverage of OnFailureRetry through the graph.)
func TestReviewRetryPolicyAuditsEveryAttempt(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{nodes.FuncTool{ToolName: "flaky", ToolDescription: "fails twice", Fn: func(context.Context, string) (string, error) {
		if calls.Add(1) <= 2 {
			return "", errors.New("service unavailable")
		}
		return "ok", nil
	}}}
	cfg := nodes.AgentConfig{Tools: ts, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 2},
		Planner: stepsPlanner(st("fetch", "flaky", `{}`), st("answer", "", "", "fetch"))}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("fetch"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	recs := out.Audit.ForStep("fetch")
	require.Len(t, recs, 3)
	for i, r := range recs {
		require.Equal(t, i+1, r.Attempt)
	}
	require.Len(t, out.Audit.Errors(), 2)
	require.Zero(t, out.Usage.Replans)
}

// --- Budgets ------------------------------------------------------------------------

// Seed 003 §7.4: "每次实际模型或工具调用前都需要由运行程序检查预算和超时，达到全局上限时
// 直接走停止出口". The wall-time budget is only checked between rounds: a
// step's retries go on long after MaxWall is spent.
func TestReviewWallTimeIsCheckedBeforeEveryToolCall(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	var calls atomic.Int32
	slow := nodes.FuncTool{ToolName: "slow", ToolDescription: "takes two minutes, then fails", Fn: func(context.Context, string) (string, error) {
		calls.Add(1)
		clock.advance(2 * time.Minute)
		return "", errors.New("service unavailable")
	}}
	cfg := nodes.AgentConfig{Tools: []tools.Tool{slow}, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 4},
		Planner: stepsPlanner(st("fetch", "slow", `{}`), st("answer", "", "", "fetch")),
		Budget:  nodes.Budget{MaxWall: time.Minute}}
	app := compileAgent(t, cfg, nil, nodes.WithClock(clock.now))
	out, err := app.Invoke(t.Context(), nodes.NewInput("fetch"))
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "no call after the wall-time budget is spent")
	require.NotNil(t, out.Stop)
	require.Equal(t, nodes.BudgetWall, out.Stop.Budget)
}

// Seed 003 §7.4: "连续两次外层检查都没有新增证据、排除候选或推进步骤时也停止并报告进展不足"
// and §5.3 "可能重复查询已经查过的仓库". A replanner that keeps checking
// warehouse A again (a new step id each time, the same input, the same
// evidence) counts as progress every round: the no-progress stop never
// fires and the run dies on the graph's recursion limit, naming no budget.
func TestReviewRepeatingTheSameCheckIsNoProgress(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	cfg := c.AgentConfig()
	cfg.Budget = nodes.Budget{} // defaults only: stop after two rounds without progress
	var n atomic.Int32
	cfg.Replanner = nodes.PartialReplan{Template: func(req nodes.ReplanRequest) ([]plan.Step, error) {
		id := fmt.Sprintf("stock_a_%d", n.Add(1))
		return []plan.Step{
			{ID: id, Description: "Check stock at warehouse A again", Tool: delivery.ToolStockCheck,
				Input: json.RawMessage(`{"warehouse":"A","sku":"SKU-01"}`), DependsOn: []string{"order"}},
			{ID: "answer_" + id, Description: "Answer", DependsOn: []string{id}},
		}, nil
	}}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.NoError(t, err)
	require.NotNil(t, out.Stop)
	require.Equal(t, nodes.BudgetRoundsWithoutProgress, out.Stop.Budget)
	require.LessOrEqual(t, c.Calls(delivery.ToolStockCheck), 3)
}

// Issue: "every stop names its budget". Per step: MaxToolCallsPerStep bounds
// a step's retries, and the stop that follows names the budget.
func TestReviewEveryStopNamesItsBudget(t *testing.T) {
	t.Parallel()
	failing := nodes.FuncTool{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
		return "", errors.New("service unavailable")
	}}
	planner := stepsPlanner(st("fetch", "flaky", `{}`), st("answer", "", "", "fetch"))
	tests := []struct {
		name   string
		budget nodes.Budget
		policy nodes.FailurePolicy
		want   string
	}{
		{"tool calls", nodes.Budget{MaxToolCalls: 2, MaxRoundsWithoutProgress: -1}, nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 5}, nodes.BudgetToolCalls},
		{"replans", nodes.Budget{MaxReplans: 1, MaxRoundsWithoutProgress: -1}, nodes.FailurePolicy{}, nodes.BudgetReplans},
		{"no progress", nodes.Budget{}, nodes.FailurePolicy{}, nodes.BudgetRoundsWithoutProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := nodes.AgentConfig{Tools: []tools.Tool{failing}, Planner: planner, Replanner: retryReplanner{}, Budget: tt.budget, FailurePolicy: tt.policy}
			app := compileAgent(t, cfg, nil)
			out, err := app.Invoke(t.Context(), nodes.NewInput("fetch"))
			require.NoError(t, err)
			require.NotNil(t, out.Stop)
			require.Equal(t, tt.want, out.Stop.Budget)
			require.Contains(t, out.Answer(), "Stopped early: nodes: stopped by budget "+tt.want)
			require.Contains(t, out.Answer(), "fetch", "what is missing")
			require.False(t, out.Response.Complete)
		})
	}
}

// --- Replan strategies -------------------------------------------------------------

// Seed 001 "三种策略的成本对比": incremental fix — 0 LLM calls, 100% of the
// progress kept. With a model that fails on any call, an unknown tool is
// still repaired and the completed step keeps its result and evidence.
func TestReviewIncrementalFixMakesNoModelCall(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "summarize")
	m := &scriptedModel{err: errors.New("the model must not be called")}
	p := plan.Plan{Goal: "g", Constraints: []string{"c"}, Steps: []plan.Step{
		done(st("a", "search", `"go"`), "3 hits", "search(go) → 3 hits"),
		{ID: "b", Description: "summarize", Tool: "sumarize", Input: json.RawMessage(`"{{a.result}}"`), DependsOn: []string{"a"},
			Status: plan.StatusFailed, Error: `unknown tool "sumarize"`},
		st("c", "", "", "b"),
	}}
	r := nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}, Full: nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}}
	d, err := nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: p, Outcomes: []nodes.StepOutcome{{StepID: "b", Status: plan.StatusFailed, ErrKind: plan.ErrKindUnknownTool}}}, r, ts)
	require.NoError(t, err)
	require.Equal(t, nodes.ActionRevise, d.Action)
	require.Equal(t, "adaptive:incremental", d.Info.Strategy)
	require.Zero(t, d.Info.ModelCalls)
	require.Zero(t, m.calls())
	b, _ := d.Plan.Step("b")
	require.Equal(t, "summarize", b.Tool)
	require.Equal(t, plan.StatusPending, b.Status)
	a, _ := d.Plan.Step("a")
	require.Equal(t, done(st("a", "search", `"go"`), "3 hits", "search(go) → 3 hits"), a)
	require.Equal(t, []string{"c"}, d.Plan.Constraints)
}

// Seed 001 AdaptiveReplanner.choose: known fixable errors → incremental;
// late failure (> 70%) → partial; early failure (< 30%) → full; otherwise
// partial. And each strategy's model-call cost: partial 1, full 1.
func TestReviewAdaptiveChoiceAndCost(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "fetch")
	newPlan := `{"steps":[{"id":"n1","description":"search again","tool":"search","input":"go","depends_on":[]},` +
		`{"id":"n2","description":"answer","tool":"","depends_on":["n1"]}]}`
	mk := func(completed, total int) plan.Plan {
		p := plan.Plan{Goal: "g", Constraints: []string{"query only"}}
		for i := range total {
			id := string(rune('a' + i))
			s := st(id, "search", `"x"`)
			if i > 0 {
				s.DependsOn = []string{string(rune('a' + i - 1))}
			}
			switch {
			case i < completed:
				s = done(s, "r"+id, "e"+id)
			case i == completed:
				s.Status, s.Error = plan.StatusFailed, "service unavailable"
			}
			p.Steps = append(p.Steps, s)
		}
		return p
	}
	tests := []struct {
		name       string
		completed  int
		total      int
		strategy   string
		keptPrefix []string
	}{
		{"early failure → full replan, completed work still kept", 0, 10, "adaptive:full", nil},
		{"late failure → partial replan", 8, 10, "adaptive:partial:model", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{"middle failure → partial replan", 5, 10, "adaptive:partial:model", []string{"a", "b", "c", "d", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{replies: []string{newPlan}}
			r := nodes.AdaptiveReplanner{Incremental: nodes.IncrementalFix{}, Partial: nodes.PartialReplan{Model: m}, Full: nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}}
			p := mk(tt.completed, tt.total)
			d, err := nodes.ReplanRound(t.Context(), nodes.RoundInput{Plan: p}, r, ts)
			require.NoError(t, err)
			require.Equal(t, nodes.ActionRevise, d.Action, d.Reason)
			require.Equal(t, tt.strategy, d.Info.Strategy)
			require.Equal(t, 1, d.Info.ModelCalls)
			require.Equal(t, tt.keptPrefix, d.Info.Kept)
			for _, id := range tt.keptPrefix {
				s, ok := d.Plan.Step(id)
				require.True(t, ok)
				require.Equal(t, plan.StatusCompleted, s.Status)
				require.Equal(t, []string{"e" + id}, s.Evidence)
			}
			require.Equal(t, []string{"query only"}, d.Plan.Constraints, "constraints are never relaxed")
		})
	}
}

// Issue: "completed steps and evidence never dropped silently; user
// constraints never relaxed" — a revision that rewrites a constraint or
// drops evidence is refused, even when the rest of it is fine.
func TestReviewRevisionMayNotRelaxAConstraintOrDropEvidence(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	p := reviewDeliveryPlan(t, c)
	ex := &nodes.Executor{Tools: ts, Checker: c.Checker()}
	for _, id := range []string{"order", "stock_a"} {
		s, _ := p.Step(id)
		p = nodes.ApplyOutcomes(p, ex.Run(t.Context(), s, p.Results()))
	}
	good, err := c.ReplanTemplate(nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "stock_a"}})
	require.NoError(t, err)
	tests := []struct {
		name   string
		mutate func(p *plan.Plan)
		want   string
	}{
		{"cost cap relaxed", func(p *plan.Plan) { p.Constraints[2] = "extra total cost at most 40" }, `constraint dropped or altered: "extra total cost at most 20"`},
		{"query-only dropped", func(p *plan.Plan) { p.Constraints = p.Constraints[:3] }, `constraint dropped or altered: "query only: change nothing"`},
		{"evidence dropped", func(p *plan.Plan) { p.Steps[1].Evidence = nil }, "evidence dropped"},
		{"blocked finding rewritten", func(p *plan.Plan) { p.Steps[1].Result = `{"warehouse":"A","available":1}` }, "completed step altered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			strategy := nodes.PartialReplan{Template: func(req nodes.ReplanRequest) ([]plan.Step, error) { return good, nil }}
			bad := replannerFunc(func(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
				np, info, err := strategy.Replan(ctx, req)
				tt.mutate(&np)
				return np, info, err
			})
			_, _, err := nodes.Revise(t.Context(), bad, nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "stock_a"}, Tools: ts}, plan.ReadOnlyGuard(ts))
			require.ErrorIs(t, err, nodes.ErrRevisionRejected)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

type replannerFunc func(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error)

func (f replannerFunc) Replan(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
	return f(ctx, req)
}

// --- Planning -------------------------------------------------------------------------

// Seed 001 "依赖图与拓扑排序": a plan in the seed's own reference syntax,
// {{step_1_result}}, is neither resolved nor rejected: Validate accepts it
// and the tool receives the literal placeholder.
func TestReviewSeedStyleReferenceIsNotPassedLiterally(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	ts := []tools.Tool{
		nodes.FuncTool{ToolName: "read_csv", ToolDescription: "reads", Fn: func(context.Context, string) (string, error) { return "rows", nil }},
		nodes.FuncTool{ToolName: "clean_data", ToolDescription: "cleans", Fn: func(_ context.Context, in string) (string, error) {
			got.Store(in)
			return "clean", nil
		}},
	}
	p := plan.Plan{Goal: "数据分析", Steps: []plan.Step{
		st("step_1", "read_csv", `{"path":"sales.csv"}`),
		st("step_2", "clean_data", `{"data":"{{step_1_result}}"}`, "step_1"),
	}}
	err := plan.Validate(p, ts)
	if err == nil {
		p = nodes.ApplyOutcomes(p, nodes.RunStep(t.Context(), p.Steps[0], ts, p.Results()))
		o := nodes.RunStep(t.Context(), p.Steps[1], ts, p.Results())
		require.Equal(t, plan.StatusCompleted, o.Status)
		require.NotContains(t, got.Load(), "{{step_1_result}}", "the tool must not receive an unresolved placeholder")
	}
}

// Issue: "validates before anything runs". A Planner other than the
// built-in ones is not validated by the planner node: a plan with a
// duplicate id starts running and the duplicate's tool runs twice.
func TestReviewAgentValidatesThePlanBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{nodes.FuncTool{ToolName: "search", ToolDescription: "search", Fn: func(context.Context, string) (string, error) {
		calls.Add(1)
		return "hits", nil
	}}}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "search", `"x"`),
		st("a", "search", `"y"`),
		st("answer", "", "", "a"),
	)}
	app := compileAgent(t, cfg, nil)
	_, err := app.Invoke(t.Context(), nodes.NewInput("search"))
	require.ErrorIs(t, err, plan.ErrInvalid)
	require.Zero(t, calls.Load(), "nothing runs before the plan is validated")
}

// Seed 001 PlanQualityEvaluator + "_plan_with_feedback": a valid plan that
// scores under the threshold is asked for again, with the problems listed,
// and the better plan is used. (Coverage: the low-score path, not a parse
// or validation failure.)
func TestReviewLowScoringPlanIsReaskedWithItsProblems(t *testing.T) {
	t.Parallel()
	ts := testTools("search")
	// Valid, but no description anywhere and no final answer step:
	// completeness 0.4, executability 1, dependencies 1 → 0.8; the threshold is 0.9.
	weak := `{"steps":[{"id":"a","tool":"search","input":"go","depends_on":[]}]}`
	good := "```json\n" + `{"steps":[{"id":"a","description":"search for go","tool":"search","input":"go","depends_on":[]},` +
		`{"id":"b","description":"answer from the hits","tool":"","depends_on":["a"]}]}` + "\n```"
	m := &scriptedModel{replies: []string{weak, good}}
	p, info, err := (&nodes.LLMPlanner{Model: m, Tools: ts, Threshold: 0.9}).Plan(t.Context(), nodes.PlanRequest{Goal: "find go", Constraints: []string{"c1"}})
	require.NoError(t, err)
	require.Equal(t, 2, info.Attempts)
	require.Equal(t, 2, info.ModelCalls)
	require.Equal(t, []string{"a", "b"}, stepIDs(p))
	require.Equal(t, []string{"c1"}, p.Constraints)
	require.Len(t, info.Rejected, 1)
	require.Contains(t, m.prompts[0], "- search: the search tool", "the prompt lists the available tools")
	require.Contains(t, m.prompts[0], "- c1", "and the constraints")
	require.Contains(t, m.prompts[1], "Your previous plan was rejected")
	require.Contains(t, m.prompts[1], "no final step answers the goal")
	require.Contains(t, m.prompts[1], "below the threshold 0.90")
}

// Seed 001 AdaptivePlanner: "先用模板匹配（零成本），匹配不到再调 LLM". The
// delivery goal matches the template and the model is not called; another
// goal goes to the model.
func TestReviewAdaptivePlannerTemplateFirst(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	m := &scriptedModel{replies: []string{deliveryPlanReply}}
	ap := &nodes.AdaptivePlanner{Templates: &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: ts}, Model: &nodes.LLMPlanner{Model: m, Tools: ts}}

	p, info, err := ap.Plan(t.Context(), c.Request())
	require.NoError(t, err)
	require.Equal(t, "template:delivery-check", info.Source)
	require.Zero(t, info.ModelCalls)
	require.Zero(t, m.calls())
	require.Equal(t, c.Constraints(), p.Constraints)

	p, info, err = ap.Plan(t.Context(), nodes.PlanRequest{Goal: "Where is my parcel for order O2002?"})
	require.NoError(t, err)
	require.Equal(t, "model", info.Source)
	require.Equal(t, 1, m.calls())
	require.Equal(t, "Where is my parcel for order O2002?", p.Goal)
}

// --- Execution --------------------------------------------------------------------------

// Seed 000 "多步骤信息收集": independent steps run in parallel. The three
// quotes of a round are in flight at the same time (each waits for the
// others before answering), which only works if they really run together.
func TestReviewReadyStepsRunConcurrently(t *testing.T) {
	t.Parallel()
	const n = 3
	var arrived atomic.Int32
	all := make(chan struct{})
	ts := []tools.Tool{nodes.FuncTool{ToolName: "search", ToolDescription: "search", Fn: func(ctx context.Context, in string) (string, error) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return "hits for " + in, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}}}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "search", `"competitor A"`),
		st("b", "search", `"competitor B"`),
		st("c", "search", `"competitor C"`),
		st("compare", "", "", "a", "b", "c"),
	)}
	app := compileAgent(t, cfg, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := app.Invoke(ctx, nodes.NewInput("compare competitors"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Equal(t, 2, out.Usage.Rounds, "one round for the three searches, one for the comparison")
	cmp, _ := out.Plan.Step("compare")
	require.Equal(t, "a: hits for competitor A\nb: hits for competitor B\nc: hits for competitor C", cmp.Result)
}

// Issue: references to "a field of" an earlier result, and the tool's
// failure kinds. A reference to a missing field fails the step with a
// reference error, before the tool is called.
func TestReviewReferenceToAMissingFieldFailsBeforeTheTool(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{nodes.FuncTool{ToolName: "quote", ToolDescription: "quote", Fn: func(context.Context, string) (string, error) {
		calls.Add(1)
		return "{}", nil
	}}}
	results := plan.Results{"order": done(st("order", "lookup", ""), `{"warehouse":"A","items":[{"sku":"SKU-01"}]}`)}
	ok := nodes.RunStep(t.Context(), st("q", "quote", `{"w":"{{order.result.warehouse}}","sku":"{{order.result.items.0.sku}}"}`, "order"), ts, results)
	require.Equal(t, plan.StatusCompleted, ok.Status, ok.Err)
	require.Equal(t, `{"sku":"SKU-01","w":"A"}`, ok.Audit[0].Input)

	bad := nodes.RunStep(t.Context(), st("q", "quote", `{"w":"{{order.result.warehous}}"}`, "order"), ts, results)
	require.Equal(t, plan.StatusFailed, bad.Status)
	require.Equal(t, plan.ErrKindReference, bad.ErrKind)
	require.Contains(t, bad.Err, `has no field "warehous"`)
	require.Equal(t, int32(1), calls.Load(), "the tool was not called for the bad reference")
	require.Empty(t, bad.Audit)
}
