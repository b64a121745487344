package nodes_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

func TestBudgetCheckNamesEachBudget(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		budget nodes.Budget
		usage  nodes.Usage
		now    time.Time
		want   string // budget name, "" for no stop
		msg    string
	}{
		{"nothing spent", nodes.Budget{MaxModelCalls: 3, MaxToolCalls: 3, MaxReplans: 1, MaxWall: time.Minute}, nodes.Usage{Start: t0}, t0, "", ""},
		{"zero budget means unlimited", nodes.Budget{MaxRoundsWithoutProgress: -1}, nodes.Usage{Start: t0, ModelCalls: 1e6, ToolCalls: 1e6, Replans: 1e6, RoundsWithoutProgress: 1e6}, t0.Add(1e6 * time.Hour), "", ""},
		{"model calls", nodes.Budget{MaxModelCalls: 3}, nodes.Usage{ModelCalls: 3}, t0, nodes.BudgetModelCalls, "nodes: stopped by budget max_model_calls: used 3 of 3"},
		{"tool calls", nodes.Budget{MaxToolCalls: 20}, nodes.Usage{ToolCalls: 21}, t0, nodes.BudgetToolCalls, "used 21 of 20"},
		{"replans over the limit", nodes.Budget{MaxReplans: 2}, nodes.Usage{Replans: 3}, t0, nodes.BudgetReplans, "used 3 of 2"},
		{"replans at the limit do not stop", nodes.Budget{MaxReplans: 2}, nodes.Usage{Replans: 2}, t0, "", ""},
		{"wall time", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Start: t0}, t0.Add(5 * time.Minute), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"wall time accumulated, clock stopped", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 5 * time.Minute}, t0.Add(time.Hour), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"a paused clock does not run", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 4 * time.Minute}, t0.Add(time.Hour), "", ""},
		{"wall time accumulated plus the running clock", nodes.Budget{MaxWall: 5 * time.Minute}, nodes.Usage{Wall: 4 * time.Minute, Start: t0}, t0.Add(time.Minute), nodes.BudgetWall, "used 5m0s of 5m0s"},
		{"rounds without progress, default 2", nodes.Budget{}, nodes.Usage{RoundsWithoutProgress: 2}, t0, nodes.BudgetRoundsWithoutProgress, "used 2 of 2"},
		{"rounds without progress, one allowed", nodes.Budget{MaxRoundsWithoutProgress: 1}, nodes.Usage{RoundsWithoutProgress: 1}, t0, nodes.BudgetRoundsWithoutProgress, "used 1 of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.budget.Check(tt.usage, tt.now)
			if tt.want == "" {
				require.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			require.Equal(t, tt.want, r.Budget)
			require.Contains(t, r.Error(), tt.msg)
		})
	}
}

func TestBudgetCanReplan(t *testing.T) {
	t.Parallel()
	require.Nil(t, nodes.Budget{}.CanReplan(nodes.Usage{Replans: 100}))
	require.Nil(t, nodes.Budget{MaxReplans: 2}.CanReplan(nodes.Usage{Replans: 1}))
	r := nodes.Budget{MaxReplans: 2}.CanReplan(nodes.Usage{Replans: 2})
	require.Equal(t, nodes.BudgetReplans, r.Budget)
}

func TestUsage(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(100, 0)
	u := nodes.Usage{Start: t0.Add(time.Second), ModelCalls: 1, Wall: time.Second}.Add(nodes.Usage{Start: t0, ToolCalls: 2, PromptTokens: 5, Wall: 2 * time.Second})
	require.Equal(t, nodes.Usage{Start: t0, ModelCalls: 1, ToolCalls: 2, PromptTokens: 5, Wall: 3 * time.Second}, u)
	u = u.EndRound(false).EndRound(false)
	require.Equal(t, 2, u.RoundsWithoutProgress)
	u = u.EndRound(true)
	require.Equal(t, 0, u.RoundsWithoutProgress)
	require.Equal(t, 3, u.Rounds)
	u = u.AddTokens(nodes.Tokens{Prompt: 1, Completion: 2, Total: 3})
	require.Equal(t, 6, u.PromptTokens)
	require.Equal(t, 3, u.TotalTokens)
}

// The wall-time budget is checked before every tool call, not only between
// rounds (seed 003 §7.4: "每次实际模型或工具调用前都需要由运行程序检查预算和超时"):
// a step's retries stop once MaxWall is spent.
func TestWallTimeIsCheckedBeforeEveryToolCall(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	var calls atomic.Int32
	slow := tool.Func{ToolName: "slow", ToolDescription: "takes two minutes, then fails", Fn: func(context.Context, string) (string, error) {
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

// Issue: "every stop names its budget". Per step: MaxToolCallsPerStep bounds
// a step's retries, and the stop that follows names the budget.
func TestEveryStopNamesItsBudget(t *testing.T) {
	t.Parallel()
	failing := tool.Func{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
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

// A spent counter stops the run only when the work left needs it: the
// delivery case with exactly the 5 tool calls it needs still runs its
// tool-less "recommend" step, and a run whose planner spent the only model
// call goes on with its template replan and answer.
func TestSpentCounterDoesNotStopStepsThatNeedNoCall(t *testing.T) {
	t.Parallel()
	t.Run("tool calls", func(t *testing.T) {
		t.Parallel()
		c := delivery.New()
		cfg := c.AgentConfig()
		cfg.Budget.MaxToolCalls = 5 // order, stock_a, b_stock, b_express, b_standard
		out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
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
		out, err := compileAgent(t, cfg, nil).Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
		require.NoError(t, err)
		require.Nil(t, out.Stop, "no step needs a model call")
		require.Contains(t, out.Answer(), "Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00")
	})
}

// Every stop says why, naming its budget: a planner whose re-ask the
// model-call budget refuses fails naming max_model_calls, with what was used
// of it.
func TestPlannerRefusedByTheBudgetNamesIt(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &scriptedModel{replies: []string{"not a plan", deliveryPlanReply}}
	app := compileAgent(t, nodes.AgentConfig{Model: m, Tools: c.Tools(), Budget: nodes.Budget{MaxModelCalls: 1}}, nil)
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.ErrorIs(t, err, nodes.ErrModelBudget)
	require.Contains(t, err.Error(), nodes.BudgetModelCalls)
	require.Contains(t, err.Error(), "1 of 1")
}

func TestExecutorMakesNoCallOnceTheWallBudgetIsSpent(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	calls := 0
	slow := tool.Func{ToolName: "slow", Fn: func(context.Context, string) (string, error) {
		calls++
		clock.advance(2 * time.Minute)
		return "", errors.New("service unavailable")
	}}
	e := &nodes.Executor{Tools: []tools.Tool{slow}, Policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3}, Now: clock.now}
	now := clock.now()
	ctx := nodes.WithWallDeadline(t.Context(), now.Add(time.Minute), time.Minute, now, clock.now)
	o := e.Run(ctx, st("fetch", "slow", `{}`), nil)
	require.Equal(t, 1, calls)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Equal(t, "service unavailable; not retried: nodes: stopped by budget max_wall: used 2m0s of 1m0s", o.Err)

	// Spent before the first call: no call, and not skipped under the skip
	// policy — the tool did not fail.
	e.Policy = nodes.FailurePolicy{Action: nodes.OnFailureSkip}
	o = e.Run(ctx, st("fetch", "slow", `{}`), nil)
	require.Equal(t, 1, calls)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Contains(t, o.Err, "stopped by budget max_wall")
	require.Empty(t, o.Audit)
}
