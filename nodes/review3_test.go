package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Review 3: the changes of 2026-11-29 22:00 and after, taken together.

// A FullReplan's new steps are self-contained (they may not depend on the
// kept ones), so its plan must redo lookups the kept steps already made.
// Progressed now counts such repeats as no progress; with the failing round
// already counted, the first round of the new plan ends the run on
// max_rounds_without_progress before the new plan reaches its new work.
func TestReview3FullReplanIsNotStoppedForRedoingItsLookups(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int32
	ts := []tools.Tool{
		tool("lookup", func(context.Context, string) (string, error) { return `{"id":1}`, nil }),
		tool("check", func(context.Context, string) (string, error) { return `{"ok":true}`, nil }),
		tool("flaky", func(context.Context, string) (string, error) {
			if flaky.Add(1) == 1 {
				return "", errors.New("service unavailable")
			}
			return `{"done":true}`, nil
		}),
	}
	first := stepsPlanner(st("s1", "lookup", `{}`), st("s2", "check", `{}`, "s1"), st("s3", "flaky", `{}`, "s2"), st("answer", "", "", "s3"))
	again := stepsPlanner(st("n1", "lookup", `{}`), st("n2", "check", `{}`, "n1"), st("n3", "flaky", `{}`, "n2"), st("answer", "", "", "n3"))
	app := compileAgent(t, nodes.AgentConfig{Tools: ts, Planner: first, Replanner: nodes.FullReplan{Planner: again}}, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("do it"))
	require.NoError(t, err)
	require.Nil(t, out.Stop, "the replanned plan was making its way: %v", out.Stop)
	require.True(t, out.Response.Complete)
}

// startRound starts synthesis steps whatever the budgets (they need no
// call), and blockedBy names a budget only when the ready steps need it. But
// Decide stops the run as soon as a counter reaches its limit, before a round
// whose ready steps need no call of that budget: the delivery case with
// exactly the 5 tool calls it needs stops before its tool-less "recommend"
// step, and a run whose planner spent the only model call it needs stops
// after its first round.
func TestReview3SpentCounterStopsStepsThatNeedNoCall(t *testing.T) {
	t.Parallel()
	t.Run("tool calls", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		cfg := c.AgentConfig()
		cfg.Budget.MaxToolCalls = 5 // order, stock_a, b_stock, b_express, b_standard
		out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.InputFor(c.Request()))
		require.NoError(t, err)
		require.Nil(t, out.Stop, "only the tool-less recommend step was left")
		require.True(t, out.Response.Complete)
	})
	t.Run("model calls", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		cfg := c.AgentConfig()
		cfg.Planner = &nodes.LLMPlanner{Model: &scriptedModel{replies: []string{deliveryPlanReply}}, Tools: cfg.Tools}
		cfg.Budget.MaxModelCalls = 1 // the planner's; the replan and the answer are templates
		out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.InputFor(c.Request()))
		require.NoError(t, err)
		require.Nil(t, out.Stop, "no step needs a model call")
		require.Contains(t, out.Answer(), "Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00")
	})
}

// Validate names the reference to write; for a look-alike whose second part
// is a misspelling of "result" it suggests a field of the result instead.
func TestReview3MisspelledReferenceSuggestsTheRightOne(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		st("order", "a", `{}`),
		st("b", "a", `{"w":"{{order.Result.warehouse}}"}`, "order"),
		st("c", "a", `{"w":"{{order.results}}"}`, "order"),
	}}
	err := plan.Validate(p, testTools("a"))
	require.ErrorIs(t, err, plan.ErrInvalid)
	require.Contains(t, err.Error(), "write {{order.result.warehouse}}")
	require.Contains(t, err.Error(), "write {{order.result}}")
	require.NotContains(t, err.Error(), "result.Result")
	require.NotContains(t, err.Error(), "result.results")
}

// Every stop says why, naming its budget: the planner node's other budget
// failure says "max_model_calls: used 1 of 1"; a re-ask the model-call
// budget refuses says only "the model-call budget is spent".
func TestReview3PlannerRefusedByTheBudgetNamesIt(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &scriptedModel{replies: []string{"not a plan", deliveryPlanReply}}
	app := compileAgent(t, nodes.AgentConfig{Model: m, Tools: c.Tools(), Budget: nodes.Budget{MaxModelCalls: 1}}, nil)
	_, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.ErrorIs(t, err, nodes.ErrModelBudget)
	require.Contains(t, err.Error(), nodes.BudgetModelCalls)
	require.Contains(t, err.Error(), "1 of 1")
}

// The guards check plan steps with their input; a ReAct step's tool call is
// a step too, but the guards judge only its tool (a one-step probe without
// input), so a call a guard would refuse as a plan step is made.
func TestReview3ReActCallIsCheckedByTheGuardsWithItsInput(t *testing.T) {
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

// --- What holds (regression guards) ----------------------------------------

// startRound and the execute tasks agree: every step a round starts gets a
// share of at least one call of each budget it spends, and the shares add
// up to no more than what is left.
func TestReview3SharesMatchTheStartedSteps(t *testing.T) {
	t.Parallel()
	ts := testTools("t")
	m := &toolCallingModel{}
	a, err := nodes.NewAgent(nodes.AgentConfig{Planner: stepsPlanner(), Tools: ts,
		Budget: nodes.Budget{MaxToolCalls: 10, MaxModelCalls: 5}}, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil))
	require.NoError(t, err)
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		{ID: "r1", Description: "research 1"}, {ID: "t1", Description: "tool 1", Tool: "t"},
		{ID: "r2", Description: "research 2"}, {ID: "r3", Description: "research 3"},
		{ID: "t2", Description: "tool 2", Tool: "t"}, {ID: "t3", Description: "tool 3", Tool: "t"},
		{ID: "answer", Description: "answer", DependsOn: []string{"t1"}},
	}}
	for _, u := range []nodes.Usage{{ToolCalls: 7, ModelCalls: 3}, {ToolCalls: 9, ModelCalls: 1}, {ToolCalls: 5, ModelCalls: 4}, {}} {
		started, n := a.StartRound(p, u)
		require.Positive(t, n)
		toolSum, modelSum := 0, 0
		for _, s := range started.Steps {
			if s.Status != plan.StatusRunning {
				continue
			}
			if a.CallsTools(s) {
				sh := a.ToolShare(started, u, s.ID)
				require.Positive(t, sh, "usage %+v: step %s started with no tool call", u, s.ID)
				toolSum += sh
			}
			if a.RunsReAct(s) {
				sh := a.ModelShare(started, u, s.ID)
				require.Positive(t, sh, "usage %+v: step %s started with no model call", u, s.ID)
				modelSum += sh
			}
		}
		require.Equal(t, nodes.ToolCallsLeft(a.Config().Budget, u), toolSum)
		require.LessOrEqual(t, modelSum, nodes.ModelCallsLeft(a.Config().Budget, u))
	}
}

// The skip policy: skipped steps are progress (they will not run again), the
// dependents run, and the answer is not complete and lists them.
func TestReview3SkippedStepsAreProgressAndMissing(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		tool("ok", func(context.Context, string) (string, error) { return `{"v":1}`, nil }),
		tool("down", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }),
	}
	planner := stepsPlanner(st("a", "down", `{}`), st("b", "ok", `{"x":"{{a.result.v}}"}`, "a"), st("c", "ok", `{}`, "a"), st("answer", "", "", "b", "c"))
	app := compileAgent(t, nodes.AgentConfig{Tools: ts, Planner: planner, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureSkip},
		Budget: nodes.Budget{MaxRoundsWithoutProgress: 1}}, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("g"))
	require.NoError(t, err)
	require.Nil(t, out.Stop)
	require.Equal(t, plan.StatusSkipped, out.Plan.Steps[0].Status)
	require.Equal(t, plan.StatusSkipped, out.Plan.Steps[1].Status, "b needs a's result")
	require.Equal(t, plan.StatusCompleted, out.Plan.Steps[2].Status, "c only comes after a")
	require.False(t, out.Response.Complete)
	require.Len(t, out.Response.Missing, 2)
	require.Contains(t, out.Answer(), "service unavailable")
}

// The delivery case end to end with a model planning, revising and
// answering, and with the case's template responder: the findings and the
// recommendation are unchanged by today's fixes.
func TestReview3DeliveryWithAModelStillReachesTheAnswer(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &scriptedModel{replies: []string{deliveryPlanReply, deliveryReplanReply}}
	cfg := c.AgentConfig()
	cfg.Model = m
	cfg.Planner, cfg.Replanner = nil, nil // keep the case's responder
	out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.InputFor(c.Request()))
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
