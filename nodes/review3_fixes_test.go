package nodes_test

// Tests for the fixes of nodes/review3_test.go's bugs, on the parts those
// tests do not pin: which rounds leave the no-progress streak alone, Decide
// told what the work left needs, and the respond node listing skipped steps
// that a Format left out.

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

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

func TestDecideChecksCountersAgainstTheWorkLeft(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Steps: []plan.Step{done(st("a", "t", ""), "ra"), st("answer", "", "", "a")}}
	b := nodes.Budget{MaxToolCalls: 1, MaxModelCalls: 1, MaxRoundsWithoutProgress: -1}
	u := nodes.Usage{ToolCalls: 1, ModelCalls: 1}
	now := time.Unix(1000, 0)
	d := nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now})
	require.Equal(t, nodes.ActionStop, d.Action, "without Needs every spent counter stops")
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &nodes.CallNeeds{}})
	require.Equal(t, nodes.ActionContinue, d.Action, d.Reason)
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &nodes.CallNeeds{ModelCalls: true}})
	require.Equal(t, nodes.ActionStop, d.Action)
	require.Equal(t, nodes.BudgetModelCalls, d.Stop.Budget)
	b.MaxWall = time.Second
	d = nodes.Decide(nodes.RoundInput{Plan: p, Budget: b, Usage: nodes.Usage{Wall: time.Hour}, Now: now, Needs: &nodes.CallNeeds{}})
	require.Equal(t, nodes.BudgetWall, d.Stop.Budget, "the wall-time budget stops as before")
}

func TestRespondListsSkippedStepsAFormatLeftOut(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		tool("ok", func(context.Context, string) (string, error) { return `{"v":1}`, nil }),
		tool("down", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }),
	}
	planner := stepsPlanner(st("a", "down", `{}`), st("c", "ok", `{}`), st("answer", "", "", "a", "c"))
	format := nodes.TemplateResponder{Format: func(nodes.RespondRequest) (string, error) { return "All good.", nil }}
	app := compileAgent(t, nodes.AgentConfig{Tools: ts, Planner: planner, Responder: format, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureSkip}}, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("g"))
	require.NoError(t, err)
	require.False(t, out.Response.Complete)
	require.Contains(t, out.Answer(), "All good.\nMissing (failed, then skipped):\n- a: ")
	require.Contains(t, out.Answer(), "service unavailable")
}
