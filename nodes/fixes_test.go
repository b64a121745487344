package nodes_test

// Tests for the fixes of nodes/review_test.go's bugs, on the parts those
// tests do not pin: the refused tool is not offered to a ReAct model, the
// Checker judges ReAct calls, the answer's "nothing was changed" comes from
// the audit log, a repeated check under a new id is no progress, the wall
// budget stops a step's retries, and misspelled references are named.

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

func TestReActGuardsHideAndRefuseTools(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolChangeOrder, `{"order_id":"O1001"}`),
		{Content: "I may not change the order."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: ts, Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "research", Description: "get O1001 there in time"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.Zero(t, c.Calls(delivery.ToolChangeOrder))
	require.Empty(t, out.Audit, "a refused call is not a tool call")
	var offered []string
	for _, d := range m.tools[0] {
		offered = append(offered, d.Function.Name)
	}
	require.Equal(t, []string{delivery.ToolOrderLookup, delivery.ToolStockCheck, delivery.ToolShippingQuote}, offered, "the refused tool is not offered")
	answer := m.calls[1][3].Parts[0].(llms.ToolCallResponse)
	require.Contains(t, answer.Content, `tool "change_order" refused, not called: tool "change_order" changes things, but the request is query-only`)
}

func TestReActStepIsJudgedByTheChecker(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolStockCheck, `{"warehouse":"A","sku":"SKU-01"}`),
		{Content: "Warehouse A is out of stock."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: c.Tools(), Checker: c.Checker()}
	out, _ := r.Run(t.Context(), plan.Step{ID: "check_a", Description: "Can warehouse A deliver in time?"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.True(t, out.Blocked)
	require.Contains(t, out.BlockReason, "restocks Saturday 10:00")
	require.Contains(t, out.Impact, "evaluate other warehouses")
	require.Equal(t, []string{"stock_check A: 0 available, restock Saturday 10:00, earliest arrival next Monday 18:00"}, out.Evidence)
	require.Equal(t, "Warehouse A is out of stock.", out.Conclusion, "the model's reply is still the step's conclusion")
}

func TestDeliveryAnswerSaysWhatWasChanged(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	p := reviewDeliveryPlan(t, c)
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

func TestExecutorMakesNoCallOnceTheWallBudgetIsSpent(t *testing.T) {
	t.Parallel()
	clock := &manualClock{t: time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)}
	calls := 0
	slow := nodes.FuncTool{ToolName: "slow", Fn: func(context.Context, string) (string, error) {
		calls++
		clock.advance(2 * time.Minute)
		return "", errors.New("service unavailable")
	}}
	e := &nodes.Executor{Tools: []tools.Tool{slow}, Policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3}, Now: clock.now}
	ctx := nodes.WithWallDeadline(t.Context(), clock.now().Add(time.Minute), time.Minute)
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

func TestValidateNamesMisspelledReferences(t *testing.T) {
	t.Parallel()
	ts := testTools("read_csv", "clean")
	tests := []struct {
		name  string
		input string
		want  string // "" for no problem
	}{
		{"the seeds' syntax", `{"data":"{{step_1_result}}"}`, "write {{step_1.result}}"},
		{"the seeds' syntax with a field", `{"path":"{{step_1_result.path}}"}`, "write {{step_1.result.path}}"},
		{"a step id without result", `{"path":"{{step_1.path}}"}`, "write {{step_1.result.path}}"},
		{"_result of no step", `"{{step_9_result}}"`, "write {{step_id.result}} or {{step_id.result.field}}"},
		{"a reference", `{"path":"{{step_1.result.path}}"}`, ""},
		{"a placeholder that names no step is the tool's business", `{"template":"Dear {{name}}"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plan.Plan{Steps: []plan.Step{st("step_1", "read_csv", `{}`), st("step_2", "clean", tt.input, "step_1")}}
			err := plan.Validate(p, ts)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var pe *plan.ValidationError
			require.ErrorAs(t, err, &pe)
			require.True(t, pe.Has(plan.ProblemInvalidInput))
			require.ErrorContains(t, err, "which is not a reference and would reach the tool as text; "+tt.want)
		})
	}
}
