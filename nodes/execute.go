package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// FailureAction is what the executor does with a step whose tool failed.
type FailureAction string

// Failure actions. Replan is the default: the step is marked failed and the
// replanner decides what to do.
const (
	OnFailureReplan FailureAction = "replan"
	OnFailureSkip   FailureAction = "skip"  // mark the step skipped and go on
	OnFailureRetry  FailureAction = "retry" // call again up to Retries times, then replan
)

// FailurePolicy is the agent's policy for failed tool calls.
type FailurePolicy struct {
	Action  FailureAction `json:"action,omitempty"`
	Retries int           `json:"retries,omitempty"` // extra calls for OnFailureRetry
}

// Verdict is a checker's reading of a successful tool call. Every field is
// optional; set fields override what the tool's output said.
type Verdict struct {
	Blocked    bool
	Reason     string   // why the route is blocked
	Impact     string   // what that means for the remaining plan
	Conclusion string   // one line: what the step found
	Evidence   []string // facts that support the conclusion
}

// Checker judges a successful step from its output, e.g. "no stock and the
// restock is after the deadline" means the route is blocked.
type Checker func(step plan.Step, output string) Verdict

// Executor runs plan steps with tools. The zero value plus Tools works.
type Executor struct {
	Tools   []tools.Tool
	Policy  FailurePolicy
	Checker Checker // optional
	// MaxToolCallsPerStep bounds the calls of one step, retries included (0: no bound).
	MaxToolCallsPerStep int
	// Now is the clock for audit records (default time.Now).
	Now func() time.Time
	// ToolTimeouts bounds each call of a tool, by tool name ("" for every
	// tool not named): a call cut off fails with kind timeout (see
	// WithToolTimeout). A call is also cut off when the wall-time budget
	// runs out (Budget.MaxWall), failing with the stop that names it.
	ToolTimeouts map[string]time.Duration
}

// Run resolves the references in the step's input, calls its tool (retrying
// per the policy), records each call for the audit, and reads the output: a
// JSON object output may carry "blocked", "reason", "impact", "conclusion"
// (or "summary") and "evidence" (string or list); the Checker, if any, has
// the last word. Run by the agent, a step makes no call, first or retry,
// once the wall-time budget (Budget.MaxWall) is spent: a retry refused so
// says so in the step's error. A step without a tool completes at once, its
// output being its dependencies' results. Run never panics on a tool's
// behalf and never returns an error: failures are in the outcome. A call
// in doubt in the effect ledger (effect.ErrInDoubt) or interrupted makes
// no further call; the agent fails its task with it (see WithLedger).
func (e *Executor) Run(ctx context.Context, step plan.Step, results plan.Results) StepOutcome {
	out := StepOutcome{StepID: step.ID, Tool: step.Tool}
	fail := func(kind plan.ErrorKind, err error) StepOutcome {
		out.Status, out.Err, out.ErrKind = plan.StatusFailed, err.Error(), kind
		if e.Policy.Action == OnFailureSkip && ctx.Err() == nil {
			out.Status = plan.StatusSkipped
		}
		return out
	}
	if step.Tool == "" {
		return e.synthesize(step, results)
	}
	tool, ok := plan.FindTool(e.Tools, step.Tool)
	if !ok {
		return fail(plan.ErrKindUnknownTool, fmt.Errorf("unknown tool %q (available: %s)", step.Tool, strings.Join(plan.ToolNames(e.Tools), ", ")))
	}
	in, err := plan.ResolveInput(step.ID, step.Input, results)
	if err != nil {
		kind := plan.ErrKindBadInput
		if errors.Is(err, plan.ErrReference) {
			kind = plan.ErrKindReference
		}
		return fail(kind, err)
	}
	input := toolInputOf(in)
	calls := 1
	if e.Policy.Action == OnFailureRetry {
		calls += max(e.Policy.Retries, 0)
	}
	if e.MaxToolCallsPerStep > 0 {
		calls = min(calls, e.MaxToolCallsPerStep)
	}
	now := e.Now
	if now == nil {
		now = time.Now
	}
	var output string
	for attempt := 1; attempt <= calls; attempt++ {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
			break
		}
		start := now()
		if stop := wallSpent(ctx, start); stop != nil {
			if attempt == 1 {
				// Not a failure of the tool: no skip, whatever the policy.
				out.Status, out.ErrKind = plan.StatusFailed, plan.ErrKindOther
				out.Err = fmt.Sprintf("step %q: %v, before calling the tool", step.ID, stop)
				return out
			}
			err = fmt.Errorf("%w; not retried: %v", err, stop)
			break
		}
		rec := AuditRecord{StepID: step.ID, Tool: step.Tool, Attempt: attempt, Input: input, Start: start}
		cctx, cancel := toolContext(ctx, step.Tool, e.ToolTimeouts)
		output, err = callTool(ledgerContext(cctx, step.ID), tool, input)
		err = callError(cctx, err)
		cancel()
		if err != nil && stopsTheTask(err) {
			out.Audit = append(out.Audit, rec)
			out.Status, out.Err, out.ErrKind, out.abort = plan.StatusFailed, err.Error(), plan.ErrKindOther, err
			return out
		}
		rec.End = now()
		rec.Duration = rec.End.Sub(rec.Start)
		rec.Output = output
		rec.Status = AuditOK
		if err != nil {
			rec.Status, rec.Error = AuditError, err.Error()
		}
		out.Audit = append(out.Audit, rec)
		out.Attempts = attempt
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		out.Output = output
		if e.Policy.Action == OnFailureRetry {
			out.Status = plan.StatusFailed // retries exhausted: the replanner decides
			out.Err, out.ErrKind = err.Error(), plan.ClassifyError(err)
			return out
		}
		return fail(plan.ClassifyError(err), err)
	}
	out.Status = plan.StatusCompleted
	out.Output = output
	v := judgeCall(step, input, output, e.Checker)
	out.Blocked, out.BlockReason, out.Impact = v.Blocked, v.Reason, v.Impact
	out.Conclusion, out.Evidence = v.Conclusion, v.Evidence
	return out
}

// judgeCall reads what a successful tool call of step says, for
// Executor.Run and for each call of a ReAct step alike: the verdict fields
// of a JSON object output ("blocked", "reason", "impact", "conclusion" or
// "summary", "evidence"), then the checker's verdict (nil: none), whose set
// fields have the last word. The conclusion defaults to the output, the
// evidence to "tool(input) → output", and the reason of a blocked route to
// the conclusion.
func judgeCall(step plan.Step, input, output string, checker Checker) Verdict {
	var o StepOutcome
	readVerdict(&o, output)
	v := Verdict{Blocked: o.Blocked, Reason: o.BlockReason, Impact: o.Impact, Conclusion: o.Conclusion, Evidence: o.Evidence}
	if checker != nil {
		c := checker(step, output)
		if c.Blocked {
			v.Blocked = true
		}
		if c.Reason != "" {
			v.Reason = c.Reason
		}
		if c.Impact != "" {
			v.Impact = c.Impact
		}
		if c.Conclusion != "" {
			v.Conclusion = c.Conclusion
		}
		if len(c.Evidence) > 0 {
			v.Evidence = c.Evidence
		}
	}
	if v.Conclusion == "" {
		v.Conclusion = text.Truncate(output, 200)
	}
	if len(v.Evidence) == 0 {
		v.Evidence = []string{fmt.Sprintf("%s(%s) → %s", step.Tool, text.Truncate(input, 120), text.Truncate(output, 300))}
	}
	if v.Blocked && v.Reason == "" {
		v.Reason = v.Conclusion
	}
	return v
}

// callTool calls a tool, turning a panic into an error.
func callTool(ctx context.Context, t tools.Tool, input string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %q panicked: %v", t.Name(), r)
		}
	}()
	return t.Call(ctx, input)
}

// toolInputOf is the string a tool receives for a step's JSON input: a JSON
// string's contents, the compact JSON text of any other value, "" for none.
func toolInputOf(in json.RawMessage) string {
	if len(in) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(in, &s) == nil {
		return s
	}
	return string(in)
}

// readVerdict reads the optional verdict fields of a JSON object output.
func readVerdict(o *StepOutcome, output string) {
	var v struct {
		Blocked    bool            `json:"blocked"`
		Reason     string          `json:"reason"`
		Impact     string          `json:"impact"`
		Conclusion string          `json:"conclusion"`
		Summary    string          `json:"summary"`
		Evidence   json.RawMessage `json:"evidence"`
	}
	if !strings.HasPrefix(strings.TrimSpace(output), "{") || json.Unmarshal([]byte(output), &v) != nil {
		return
	}
	o.Blocked = v.Blocked
	o.BlockReason = v.Reason
	o.Impact = v.Impact
	o.Conclusion = v.Conclusion
	if o.Conclusion == "" {
		o.Conclusion = v.Summary
	}
	var list []string
	var one string
	switch {
	case json.Unmarshal(v.Evidence, &list) == nil:
		o.Evidence = list
	case json.Unmarshal(v.Evidence, &one) == nil && one != "":
		o.Evidence = []string{one}
	}
}

// synthesize completes a tool-less step with its dependencies' results; a
// skipped dependency is marked so, with its error, not left blank.
func (e *Executor) synthesize(step plan.Step, results plan.Results) StepOutcome {
	var b strings.Builder
	var ev []string
	for _, d := range step.DependsOn {
		r := results[d]
		if r.Status == plan.StatusSkipped {
			fmt.Fprintf(&b, "%s: (skipped: %s)\n", d, r.Error)
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", d, r.Result)
		ev = append(ev, r.Evidence...)
	}
	return StepOutcome{StepID: step.ID, Status: plan.StatusCompleted, Conclusion: step.Description, Output: strings.TrimSpace(b.String()), Evidence: ev}
}

// RunSteps runs steps concurrently (each in its own goroutine) against the
// same results and returns their outcomes in the order of steps. It is the
// in-process stand-in for one execute superstep fanned out with Send.
func (e *Executor) RunSteps(ctx context.Context, steps []plan.Step, results plan.Results) []StepOutcome {
	out := make([]StepOutcome, len(steps))
	var wg sync.WaitGroup
	for i, s := range steps {
		wg.Go(func() { out[i] = e.Run(ctx, s, results) })
	}
	wg.Wait()
	return out
}
