package nodes_test

import (
	"context"
	"errors"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// TestReplanRespectsModelCallBudget: Budget.MaxModelCalls is 2. The
// planner spends one call; the only step fails, so the replan node revises
// with the default adaptive replanner, whose model strategies are not told
// how much of the budget is left: the full replan re-asks the model up to
// its MaxAttempts (3) on top, so the run makes 4 model calls with a budget
// of 2. (The respond node is careful not to exceed the budget; the replan
// node is not.)
func TestReplanRespectsModelCallBudget(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{nodes.FuncTool{ToolName: "flaky", ToolDescription: "always fails",
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

// nilModel answers (nil, nil): no error, no response.
type nilModel struct{}

func (nilModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, nil
}

func (nilModel) Call(context.Context, string, ...llms.CallOption) (string, error) { return "", nil }

// TestPlannerNilResponseIsAnError: a model (or client wrapper) that
// returns a nil response without an error makes generate dereference nil:
// the planner and the responder panic instead of failing with a clear error
// (the ReAct executor handles the same case).
func TestPlannerNilResponseIsAnError(t *testing.T) {
	t.Parallel()
	pl := &nodes.LLMPlanner{Model: nilModel{}}
	require.NotPanics(t, func() {
		_, _, err := pl.Plan(t.Context(), nodes.PlanRequest{Goal: "anything"})
		require.Error(t, err)
	})
	require.NotPanics(t, func() {
		_, err := nodes.LLMResponder{Model: nilModel{}}.Respond(t.Context(), nodes.RespondRequest{Plan: plan.Plan{Goal: "g"}})
		require.Error(t, err)
	})
}
