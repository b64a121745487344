package nodes_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// On failure "skip" (seed 001 PlanExecutor: "步骤 N 失败，跳过"): the remaining
// steps go on, those that depend on the skipped one included, and the run
// answers.
func TestSkipPolicyGoesOn(t *testing.T) {
	t.Parallel()
	var okCalls atomic.Int32
	ts := []tools.Tool{
		tool.Func{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
			return "", errors.New("service unavailable")
		}},
		tool.Func{ToolName: "work", ToolDescription: "works", Fn: func(context.Context, string) (string, error) {
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

// When key data was not found the answer says so (seed 003 §4.4, "目前还不能
// 判断"): a step skipped under OnFailureSkip leaves the response incomplete,
// and the generic answer names it with its error.
func TestSkippedStepIsReportedAsMissing(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		tool.Func{ToolName: "flaky", ToolDescription: "fails", Fn: func(context.Context, string) (string, error) {
			return "", errors.New("price service unavailable")
		}},
		tool.Func{ToolName: "work", ToolDescription: "works", Fn: func(context.Context, string) (string, error) {
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

// Retry (seed 001: "重试一次" then report): the retries are audit records with
// attempts 1..n, and the step then goes to the replanner as failed, through
// the graph.
func TestRetryPolicyAuditsEveryAttempt(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{tool.Func{ToolName: "flaky", ToolDescription: "fails twice", Fn: func(context.Context, string) (string, error) {
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

// The skip policy: skipped steps are progress (they will not run again), the
// dependents run, and the answer is not complete and lists them.
func TestSkippedStepsAreProgressAndMissing(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		funcTool("ok", func(context.Context, string) (string, error) { return `{"v":1}`, nil }),
		funcTool("down", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }),
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
