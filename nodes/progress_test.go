package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// Checking the same thing again is no progress (seed 003 §7.4 and §5.3): a
// replanner that keeps checking warehouse A (a new step id each time, the same
// input, the same evidence) is stopped by max_rounds_without_progress, which
// the stop names, not by the graph's recursion limit.
func TestRepeatingTheSameCheckIsNoProgress(t *testing.T) {
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
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.NotNil(t, out.Stop)
	require.Equal(t, nodes.BudgetRoundsWithoutProgress, out.Stop.Budget)
	require.LessOrEqual(t, c.Calls(delivery.ToolStockCheck), 3)
}

// A FullReplan's new steps are self-contained (they may not depend on the
// kept ones), so its plan redoes lookups the kept steps already made: such a
// round is no progress but no round without progress either (OnlyRepeated),
// so the new plan reaches its new work instead of stopping on
// max_rounds_without_progress.
func TestFullReplanIsNotStoppedForRedoingItsLookups(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int32
	ts := []tools.Tool{
		funcTool("lookup", func(context.Context, string) (string, error) { return `{"id":1}`, nil }),
		funcTool("check", func(context.Context, string) (string, error) { return `{"ok":true}`, nil }),
		funcTool("flaky", func(context.Context, string) (string, error) {
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

func TestOnlyRepeated(t *testing.T) {
	t.Parallel()
	order := done(st("order", "lookup", `{"id":1}`), `{"w":"A"}`, "order 1: warehouse A")
	before := plan.Plan{Steps: []plan.Step{order,
		{ID: "again", Tool: "lookup", Input: json.RawMessage(`{"id":1}`), Status: plan.StatusRunning},
		{ID: "answer", DependsOn: []string{"again"}}}}
	same := nodes.StepOutcome{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"order 1: warehouse A"}}
	blocked := same
	blocked.Blocked = true
	failed := nodes.StepOutcome{StepID: "again", Status: plan.StatusFailed, Err: "boom"}
	tests := []struct {
		name string
		outs []nodes.StepOutcome
		want bool
	}{
		{"a repeat", []nodes.StepOutcome{same}, true},
		{"a repeat that shows the route blocked", []nodes.StepOutcome{blocked}, false},
		{"a failure", []nodes.StepOutcome{failed}, false},
		{"new evidence", []nodes.StepOutcome{{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"order 1: warehouse B"}}}, false},
		{"a synthesis step", []nodes.StepOutcome{{StepID: "answer", Status: plan.StatusCompleted}}, false},
		{"no outcome", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, nodes.OnlyRepeated(before, tt.outs))
		})
	}
}

func TestProgressedIgnoresRepeatedChecks(t *testing.T) {
	t.Parallel()
	order := done(st("order", "lookup", `{"id":1}`), `{"w":"A"}`, "order 1: warehouse A")
	check := done(st("check", "stock", `{"w":"{{order.result.w}}","sku":"S"}`, "order"), "0", "A: 0 available")
	before := plan.Plan{Steps: []plan.Step{order, check,
		{ID: "again", Tool: "stock", Input: json.RawMessage(`{"sku":"S","w":"A"}`), DependsOn: []string{"order"}, Status: plan.StatusRunning},
		{ID: "answer", DependsOn: []string{"again"}}}}
	tests := []struct {
		name    string
		outcome nodes.StepOutcome
		want    bool
	}{
		{"same tool, input and evidence: no progress", nodes.StepOutcome{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"A: 0 available"}}, false},
		{"new evidence: progress", nodes.StepOutcome{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"A: 2 available"}}, true},
		{"a synthesis step completing: progress", nodes.StepOutcome{StepID: "answer", Status: plan.StatusCompleted}, true},
		{"skipped: progress", nodes.StepOutcome{StepID: "again", Status: plan.StatusSkipped}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, nodes.Progressed(before, []nodes.StepOutcome{tt.outcome}))
		})
	}
	other := before.Clone()
	other.Steps[2].Input = json.RawMessage(`{"sku":"S","w":"B"}`)
	require.True(t, nodes.Progressed(other, []nodes.StepOutcome{{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"A: 0 available"}}}),
		"another input is other work")
}
