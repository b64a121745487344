package nodes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// TestModelCallsRefusedByTheBudgetAreNotCounted: the planner, the replan
// strategies and the responder report in ModelCalls the calls they made,
// not the one the model-call budget refused (ErrModelBudget).
func TestModelCallsRefusedByTheBudgetAreNotCounted(t *testing.T) {
	t.Parallel()
	req, ts := failedPlan(plan.ErrKindOther, st("b", "search", `"x"`, "a"))
	tests := []struct {
		name    string
		allowed int
		// run asks the model until the allowance refuses, and returns the
		// model calls it reports.
		run func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error)
	}{{
		name: "LLMPlanner", allowed: 2,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			_, info, err := (&nodes.LLMPlanner{Model: m, Tools: ts}).Plan(ctx, nodes.PlanRequest{Goal: "g"})
			require.Equal(t, 2, info.Attempts, "a refused call is not an attempt")
			return info.ModelCalls, err
		},
	}, {
		name: "LLMPlanner, nothing left", allowed: 0,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			_, info, err := (&nodes.LLMPlanner{Model: m, Tools: ts}).Plan(ctx, nodes.PlanRequest{Goal: "g"})
			require.Zero(t, info.Attempts)
			return info.ModelCalls, err
		},
	}, {
		name: "PartialReplan", allowed: 1,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			_, info, err := nodes.PartialReplan{Model: m}.Replan(ctx, req)
			return info.ModelCalls, err
		},
	}, {
		name: "FullReplan", allowed: 2,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			_, info, err := nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}.Replan(ctx, req)
			return info.ModelCalls, err
		},
	}, {
		name: "AdaptiveReplanner: a rejected strategy's calls count, the refused one does not", allowed: 4,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			ar := nodes.AdaptiveReplanner{Partial: nodes.PartialReplan{Model: m}, Full: nodes.FullReplan{Planner: &nodes.LLMPlanner{Model: m, Tools: ts}}}
			_, info, err := ar.Replan(ctx, req)
			require.Len(t, info.Failed, 1, "the partial replan's plans were rejected after 3 calls")
			return info.ModelCalls, err
		},
	}, {
		name: "LLMResponder", allowed: 0,
		run: func(t *testing.T, ctx context.Context, m *scriptedModel) (int, error) {
			resp, err := nodes.LLMResponder{Model: m}.Respond(ctx, nodes.RespondRequest{Plan: req.Plan})
			return resp.ModelCalls, err
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{replies: []string{"no plan", "no plan", "no plan", "no plan", "no plan", "no plan"}}
			ctx, allow := nodes.WithModelCalls(t.Context(), tt.allowed)
			calls, err := tt.run(t, ctx, m)
			require.ErrorIs(t, err, nodes.ErrModelBudget)
			require.Equal(t, tt.allowed, m.calls(), "the model was asked as often as allowed")
			require.Equal(t, m.calls(), calls, "the reported calls are the calls made")
			require.Zero(t, allow.Left())
		})
	}
}

// TestAgentCountsTheModelCallsMadeWhenAReplanIsRefused: the replan node
// stops the run when its strategies run out of model calls, and counts
// the calls they made, not the refused one, in Usage and in the decision.
func TestAgentCountsTheModelCallsMadeWhenAReplanIsRefused(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{tool.Func{ToolName: "flaky", ToolDescription: "always fails",
		Fn: func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }}}
	reply := `{"goal": "fetch the data", "steps": [
  {"id": "fetch", "description": "fetch the data", "tool": "flaky", "input": {}},
  {"id": "answer", "description": "answer the user", "tool": "", "depends_on": ["fetch"]}]}`
	m := &scriptedModel{replies: []string{reply, "no plan", "no plan", "no plan", "no plan", "no plan"}}
	cfg := nodes.AgentConfig{Tools: ts, Model: m, Budget: nodes.Budget{MaxModelCalls: 3}}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("fetch the data"))
	require.NoError(t, err)
	require.Equal(t, 3, m.calls(), "one plan, two replan attempts, the third refused")
	require.Equal(t, 3, out.Usage.ModelCalls)
	require.Equal(t, 3*120, out.Usage.TotalTokens)
	last := out.Decisions[len(out.Decisions)-1]
	require.Equal(t, nodes.ActionStop, last.Action)
	require.Equal(t, 2, last.Info.ModelCalls)
	require.Equal(t, &nodes.StopReason{Budget: nodes.BudgetModelCalls, Limit: "3", Used: "3"}, out.Stop)
}

// Budget.MaxModelCalls holds for the replan node too: with a budget of 2,
// the planner spends one call, the only step fails, and the default adaptive
// replanner's model strategies get only the one call left, however many
// attempts they would make.
func TestReplanRespectsModelCallBudget(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{tool.Func{ToolName: "flaky", ToolDescription: "always fails",
		Fn: func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }}}
	reply := `{"goal": "fetch the data", "steps": [
  {"id": "fetch", "description": "fetch the data", "tool": "flaky", "input": {}},
  {"id": "answer", "description": "answer the user", "tool": "", "depends_on": ["fetch"]}]}`
	m := &scriptedModel{replies: []string{reply, "no plan", "no plan", "no plan", "no plan", "no plan", "no plan"}}
	cfg := nodes.AgentConfig{Tools: ts, Model: m, Budget: nodes.Budget{MaxModelCalls: 2}}
	app := compileAgent(t, cfg, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("fetch the data"))
	require.NoError(t, err)
	require.LessOrEqual(t, m.calls(), 2, "model calls made with MaxModelCalls 2 (usage %d, decisions %+v)", out.Usage.ModelCalls, out.Decisions)
	require.LessOrEqual(t, out.Usage.ModelCalls, 2)
}
