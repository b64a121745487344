package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// funcTool is a tool.Func named name calling fn.
func funcTool(name string, fn func(ctx context.Context, in string) (string, error)) tools.Tool {
	return tool.Func{ToolName: name, ToolDescription: name, Fn: fn}
}

func fixedClock() func() time.Time {
	var n atomic.Int64
	t0 := time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func TestRunStepResolvesCallsAndAudits(t *testing.T) {
	t.Parallel()
	var got string
	ts := []tools.Tool{funcTool("echo", func(_ context.Context, in string) (string, error) { got = in; return `{"ok":true}`, nil })}
	results := plan.Results{"a": {ID: "a", Status: plan.StatusCompleted, Result: `{"w":"A"}`}}
	ex := &nodes.Executor{Tools: ts, Now: fixedClock()}
	o := ex.Run(t.Context(), st("b", "echo", `{"warehouse":"{{a.result.w}}"}`, "a"), results)
	require.Equal(t, plan.StatusCompleted, o.Status)
	require.Equal(t, `{"warehouse":"A"}`, got)
	require.Equal(t, `{"ok":true}`, o.Output)
	require.False(t, o.Blocked)
	require.Equal(t, []string{`echo({"warehouse":"A"}) → {"ok":true}`}, o.Evidence)
	require.Len(t, o.Audit, 1)
	a := o.Audit[0]
	require.Equal(t, nodes.AuditRecord{StepID: "b", Tool: "echo", Attempt: 1, Input: `{"warehouse":"A"}`, Output: `{"ok":true}`,
		Start: a.Start, End: a.End, Duration: time.Millisecond, Status: nodes.AuditOK}, a)

	// A JSON string input reaches the tool as its contents.
	o = runStep(t.Context(), st("c", "echo", `"O1001"`), ts, nil)
	require.Equal(t, plan.StatusCompleted, o.Status)
	require.Equal(t, "O1001", got)
}

func TestRunStepBlockedIsNotFailure(t *testing.T) {
	t.Parallel()
	blocked := funcTool("stock", func(context.Context, string) (string, error) {
		return `{"available":0,"blocked":true,"reason":"no stock until Saturday","impact":"the delivery step loses its premise","conclusion":"A cannot deliver","evidence":"stock A: 0"}`, nil
	})
	failing := funcTool("down", func(context.Context, string) (string, error) { return "", errors.New("connection refused") })
	ts := []tools.Tool{blocked, failing}

	o := runStep(t.Context(), st("s", "stock", ""), ts, nil)
	require.Equal(t, plan.StatusCompleted, o.Status)
	require.True(t, o.Blocked)
	require.Equal(t, "no stock until Saturday", o.BlockReason)
	require.Equal(t, "the delivery step loses its premise", o.Impact)
	require.Equal(t, "A cannot deliver", o.Conclusion)
	require.Equal(t, []string{"stock A: 0"}, o.Evidence)
	require.Empty(t, o.Err)

	o = runStep(t.Context(), st("d", "down", ""), ts, nil)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.False(t, o.Blocked)
	require.Equal(t, "connection refused", o.Err)
	require.Equal(t, plan.ErrKindOther, o.ErrKind)
	require.Equal(t, nodes.AuditError, o.Audit[0].Status)
}

func TestRunStepChecker(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{funcTool("stock", func(context.Context, string) (string, error) { return `{"available":0}`, nil })}
	ex := &nodes.Executor{Tools: ts, Checker: func(s plan.Step, out string) nodes.Verdict {
		var v struct{ Available int }
		_ = json.Unmarshal([]byte(out), &v)
		if v.Available == 0 {
			return nodes.Verdict{Blocked: true, Reason: "out of stock", Evidence: []string{"E1"}}
		}
		return nodes.Verdict{}
	}}
	o := ex.Run(t.Context(), st("s", "stock", ""), nil)
	require.True(t, o.Blocked)
	require.Equal(t, "out of stock", o.BlockReason)
	require.Equal(t, []string{"E1"}, o.Evidence)
}

func TestRunStepFailurePolicies(t *testing.T) {
	t.Parallel()
	flaky := func(failures int) (tools.Tool, *atomic.Int32) {
		var n atomic.Int32
		return funcTool("flaky", func(context.Context, string) (string, error) {
			if int(n.Add(1)) <= failures {
				return "", fmt.Errorf("attempt %d: %w", n.Load(), plan.ErrBadInput)
			}
			return "ok", nil
		}), &n
	}
	tests := []struct {
		name     string
		policy   nodes.FailurePolicy
		perStep  int
		failures int
		status   plan.StepStatus
		calls    int32
		kind     plan.ErrorKind
	}{
		{"replan by default", nodes.FailurePolicy{}, 0, 1, plan.StatusFailed, 1, plan.ErrKindBadInput},
		{"skip", nodes.FailurePolicy{Action: nodes.OnFailureSkip}, 0, 1, plan.StatusSkipped, 1, plan.ErrKindBadInput},
		{"retry succeeds", nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 2}, 0, 2, plan.StatusCompleted, 3, ""},
		{"retry exhausted", nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 2}, 0, 5, plan.StatusFailed, 3, plan.ErrKindBadInput},
		{"retry bounded per step", nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 5}, 2, 5, plan.StatusFailed, 2, plan.ErrKindBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tl, n := flaky(tt.failures)
			ex := &nodes.Executor{Tools: []tools.Tool{tl}, Policy: tt.policy, MaxToolCallsPerStep: tt.perStep}
			o := ex.Run(t.Context(), st("s", "flaky", ""), nil)
			require.Equal(t, tt.status, o.Status)
			require.Equal(t, tt.calls, n.Load())
			require.Len(t, o.Audit, int(tt.calls))
			require.Equal(t, int(tt.calls), o.Attempts)
			require.Equal(t, tt.kind, o.ErrKind)
		})
	}
}

func TestRunStepFailsWithoutCallingTool(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	ts := []tools.Tool{funcTool("t", func(context.Context, string) (string, error) { called.Store(true); return "", nil })}
	o := runStep(t.Context(), st("s", "nope", ""), ts, nil)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Equal(t, plan.ErrKindUnknownTool, o.ErrKind)
	require.Contains(t, o.Err, `unknown tool "nope" (available: t)`)

	o = runStep(t.Context(), st("s", "t", `"{{a.result}}"`), ts, plan.Results{"a": {ID: "a"}})
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Equal(t, plan.ErrKindReference, o.ErrKind)
	require.Contains(t, o.Err, `step "s": reference {{a.result}}: step "a" is pending, not completed`)
	require.False(t, called.Load())
	require.Empty(t, o.Audit)
}

func TestRunStepRecoversToolPanic(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{funcTool("p", func(context.Context, string) (string, error) { panic("kaboom") })}
	o := runStep(t.Context(), st("s", "p", ""), ts, nil)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Contains(t, o.Err, `tool "p" panicked: kaboom`)
}

func TestRunStepCanceledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ts := []tools.Tool{funcTool("t", func(ctx context.Context, _ string) (string, error) { return "", ctx.Err() })}
	ex := &nodes.Executor{Tools: ts, Policy: nodes.FailurePolicy{Action: nodes.OnFailureRetry, Retries: 3}}
	o := ex.Run(ctx, st("s", "t", ""), nil)
	require.Equal(t, plan.StatusFailed, o.Status)
	require.Equal(t, plan.ErrKindCanceled, o.ErrKind)
	require.Empty(t, o.Audit)
}

func TestSynthesisStep(t *testing.T) {
	t.Parallel()
	res := plan.Results{"a": {ID: "a", Status: plan.StatusCompleted, Result: "ra", Evidence: []string{"ea"}}, "b": {ID: "b", Status: plan.StatusCompleted, Result: "rb"}}
	o := runStep(t.Context(), plan.Step{ID: "z", Description: "answer", DependsOn: []string{"a", "b"}}, nil, res)
	require.Equal(t, plan.StatusCompleted, o.Status)
	require.Equal(t, "a: ra\nb: rb", o.Output)
	require.Equal(t, []string{"ea"}, o.Evidence)
	require.Empty(t, o.Audit)
}

// Two independent ready steps run at the same time: each tool waits until
// the other has been called, which only works if they run concurrently.
func TestRunStepsRunsReadyStepsInParallel(t *testing.T) {
	t.Parallel()
	arrived := make(chan string, 2)
	both := make(chan struct{})
	var gate atomic.Int32
	wait := func(name string) tools.Tool {
		return funcTool(name, func(ctx context.Context, _ string) (string, error) {
			arrived <- name
			if gate.Add(1) == 2 {
				close(both)
			}
			select {
			case <-both:
				return name + " done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p := plan.Plan{Steps: []plan.Step{st("root", "", ""), st("x", "x", "", "root"), st("y", "y", "", "root"), st("z", "", "", "x", "y")}}
	p = nodes.ApplyOutcomes(p, runStep(ctx, p.Steps[0], nil, p.Results()))
	ready := p.Ready()
	require.Equal(t, []string{"x", "y"}, stepIDs(plan.Plan{Steps: ready}))
	outs := (&nodes.Executor{Tools: []tools.Tool{wait("x"), wait("y")}}).RunSteps(ctx, ready, p.Results())
	require.Equal(t, "x", outs[0].StepID)
	require.Equal(t, "y", outs[1].StepID)
	require.Equal(t, plan.StatusCompleted, outs[0].Status)
	require.Equal(t, plan.StatusCompleted, outs[1].Status)
	p = nodes.ApplyOutcomes(p, outs...)
	require.Equal(t, []string{"z"}, stepIDs(plan.Plan{Steps: p.Ready()}))
}

func TestClassifyError(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]plan.ErrorKind{
		fmt.Errorf("x: %w", plan.ErrBadInput):       plan.ErrKindBadInput,
		fmt.Errorf("open: %w", plan.ErrMissingFile): plan.ErrKindMissingFile,
		errors.New("open /x: no such file or dir"):  plan.ErrKindMissingFile,
		errors.New("文件不存在"):                         plan.ErrKindMissingFile,
		errors.New("unknown tool \"x\""):            plan.ErrKindUnknownTool,
		errors.New("permission denied"):             plan.ErrKindPermission,
		context.DeadlineExceeded:                    plan.ErrKindTimeout,
		errors.New("boom"):                          plan.ErrKindOther,
	} {
		require.Equal(t, want, plan.ClassifyError(err), err.Error())
	}
}

func TestAuditLogJSON(t *testing.T) {
	t.Parallel()
	var empty nodes.AuditLog
	b, err := empty.JSON()
	require.NoError(t, err)
	require.Equal(t, "[]", string(b))

	t0 := time.Date(2024, 6, 4, 9, 0, 0, 0, time.UTC)
	log := nodes.AuditLog{
		{StepID: "a", Tool: "t", Attempt: 1, Input: "i", Output: "o", Start: t0, End: t0.Add(time.Second), Duration: time.Second, Status: nodes.AuditOK},
		{StepID: "b", Tool: "t", Attempt: 1, Start: t0, End: t0, Status: nodes.AuditError, Error: "boom"},
	}
	b, err = log.JSON()
	require.NoError(t, err)
	require.Contains(t, string(b), `"duration_ns": 1000000000`)
	var back nodes.AuditLog
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, log, back)
	require.Len(t, log.ForStep("a"), 1)
	require.Equal(t, "boom", log.Errors()[0].Error)
}

// Seed 003 §7.2.2: the P2 result package — status completed, conclusion,
// evidence (E1: restock Saturday 10:00, arrival next Monday 18:00) and the
// impact on the remaining plan — and "工具调用成功 / 当前步骤完成 / 原路线受阻"
// all at once, not a failure.
func TestBlockedStockCheckIsACompleteResultPackage(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	p := deliveryPlan(t, c)
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

// A plan in the seed documents' reference syntax, {{step_1_result}}, never
// reaches a tool as a literal placeholder: Validate rejects it (or, were it
// accepted, the tool would have to receive the resolved value).
func TestSeedStyleReferenceIsNotPassedLiterally(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	ts := []tools.Tool{
		tool.Func{ToolName: "read_csv", ToolDescription: "reads", Fn: func(context.Context, string) (string, error) { return "rows", nil }},
		tool.Func{ToolName: "clean_data", ToolDescription: "cleans", Fn: func(_ context.Context, in string) (string, error) {
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
		p = nodes.ApplyOutcomes(p, runStep(t.Context(), p.Steps[0], ts, p.Results()))
		o := runStep(t.Context(), p.Steps[1], ts, p.Results())
		require.Equal(t, plan.StatusCompleted, o.Status)
		require.NotContains(t, got.Load(), "{{step_1_result}}", "the tool must not receive an unresolved placeholder")
	}
}

// Issue: references to "a field of" an earlier result, and the tool's
// failure kinds. A reference to a missing field fails the step with a
// reference error, before the tool is called.
func TestReferenceToAMissingFieldFailsBeforeTheTool(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{tool.Func{ToolName: "quote", ToolDescription: "quote", Fn: func(context.Context, string) (string, error) {
		calls.Add(1)
		return "{}", nil
	}}}
	results := plan.Results{"order": done(st("order", "lookup", ""), `{"warehouse":"A","items":[{"sku":"SKU-01"}]}`)}
	ok := runStep(t.Context(), st("q", "quote", `{"w":"{{order.result.warehouse}}","sku":"{{order.result.items.0.sku}}"}`, "order"), ts, results)
	require.Equal(t, plan.StatusCompleted, ok.Status, ok.Err)
	require.Equal(t, `{"sku":"SKU-01","w":"A"}`, ok.Audit[0].Input)

	bad := runStep(t.Context(), st("q", "quote", `{"w":"{{order.result.warehous}}"}`, "order"), ts, results)
	require.Equal(t, plan.StatusFailed, bad.Status)
	require.Equal(t, plan.ErrKindReference, bad.ErrKind)
	require.Contains(t, bad.Err, `has no field "warehous"`)
	require.Equal(t, int32(1), calls.Load(), "the tool was not called for the bad reference")
	require.Empty(t, bad.Audit)
}

// runStep runs one step with the default policy (replan on failure).
func runStep(ctx context.Context, step plan.Step, ts []tools.Tool, results plan.Results) nodes.StepOutcome {
	return (&nodes.Executor{Tools: ts}).Run(ctx, step, results)
}
