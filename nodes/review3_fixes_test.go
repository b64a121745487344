package nodes

// Tests for the fixes of nodes/review3_test.go's bugs, on the parts those
// tests do not pin: which rounds leave the no-progress streak alone, Decide
// told what the work left needs, and the respond node listing skipped steps
// that a Format left out.

import (
	"context"
	"encoding/json"
	"errors"
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
	same := StepOutcome{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"order 1: warehouse A"}}
	blocked := same
	blocked.Blocked = true
	failed := StepOutcome{StepID: "again", Status: plan.StatusFailed, Err: "boom"}
	tests := []struct {
		name string
		outs []StepOutcome
		want bool
	}{
		{"a repeat", []StepOutcome{same}, true},
		{"a repeat that shows the route blocked", []StepOutcome{blocked}, false},
		{"a failure", []StepOutcome{failed}, false},
		{"new evidence", []StepOutcome{{StepID: "again", Status: plan.StatusCompleted, Evidence: []string{"order 1: warehouse B"}}}, false},
		{"a synthesis step", []StepOutcome{{StepID: "answer", Status: plan.StatusCompleted}}, false},
		{"no outcome", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, OnlyRepeated(before, tt.outs))
		})
	}
}

func TestDecideChecksCountersAgainstTheWorkLeft(t *testing.T) {
	t.Parallel()
	p := plan.Plan{Steps: []plan.Step{done(st("a", "t", ""), "ra"), st("answer", "", "", "a")}}
	b := Budget{MaxToolCalls: 1, MaxModelCalls: 1, MaxRoundsWithoutProgress: -1}
	u := Usage{ToolCalls: 1, ModelCalls: 1}
	now := time.Unix(1000, 0)
	d := Decide(RoundInput{Plan: p, Budget: b, Usage: u, Now: now})
	require.Equal(t, ActionStop, d.Action, "without Needs every spent counter stops")
	d = Decide(RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &CallNeeds{}})
	require.Equal(t, ActionContinue, d.Action, d.Reason)
	d = Decide(RoundInput{Plan: p, Budget: b, Usage: u, Now: now, Needs: &CallNeeds{ModelCalls: true}})
	require.Equal(t, ActionStop, d.Action)
	require.Equal(t, BudgetModelCalls, d.Stop.Budget)
	b.MaxWall = time.Second
	d = Decide(RoundInput{Plan: p, Budget: b, Usage: Usage{Wall: time.Hour}, Now: now, Needs: &CallNeeds{}})
	require.Equal(t, BudgetWall, d.Stop.Budget, "the wall-time budget stops as before")
}

func TestRespondListsSkippedStepsAFormatLeftOut(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		tool("ok", func(context.Context, string) (string, error) { return `{"v":1}`, nil }),
		tool("down", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }),
	}
	planner := stepsPlanner(st("a", "down", `{}`), st("c", "ok", `{}`), st("answer", "", "", "a", "c"))
	format := TemplateResponder{Format: func(RespondRequest) (string, error) { return "All good.", nil }}
	app := compileAgent(t, AgentConfig{Tools: ts, Planner: planner, Responder: format, FailurePolicy: FailurePolicy{Action: OnFailureSkip}}, nil)
	out, err := app.Invoke(t.Context(), NewInput("g"))
	require.NoError(t, err)
	require.False(t, out.Response.Complete)
	require.Contains(t, out.Answer(), "All good.\nMissing (failed, then skipped):\n- a: ")
	require.Contains(t, out.Answer(), "service unavailable")
}
