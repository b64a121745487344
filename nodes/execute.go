package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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
type Checker func(step Step, output string) Verdict

// StepOutcome is the result package of one step: what happened, what it
// concluded, the evidence, and whether the step — though it succeeded —
// showed that the planned route is blocked. It is JSON-serializable (past
// steps in graph state).
//
// Tool failure and a blocked route are different things: a failed tool has
// Status failed and Err set; a blocked route has Status completed, Blocked
// true and BlockReason/Impact set.
type StepOutcome struct {
	StepID      string        `json:"step_id"`
	Tool        string        `json:"tool,omitempty"`
	Status      StepStatus    `json:"status"`
	Conclusion  string        `json:"conclusion,omitempty"`
	Evidence    []string      `json:"evidence,omitempty"`
	Output      string        `json:"output,omitempty"`
	Err         string        `json:"error,omitempty"`
	ErrKind     ErrorKind     `json:"error_kind,omitempty"`
	Blocked     bool          `json:"blocked,omitempty"`
	BlockReason string        `json:"block_reason,omitempty"`
	Impact      string        `json:"impact,omitempty"`
	Attempts    int           `json:"attempts"`
	Audit       []AuditRecord `json:"audit,omitempty"` // one record per tool call
	// Start and End are when the agent's execute task ran the step; the
	// replan node adds the round's running time to Usage.Wall from them.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// Executor runs plan steps with tools. The zero value plus Tools works.
type Executor struct {
	Tools   []tools.Tool
	Policy  FailurePolicy
	Checker Checker // optional
	// MaxToolCallsPerStep bounds the calls of one step, retries included (0: no bound).
	MaxToolCallsPerStep int
	// Now is the clock for audit records (default time.Now).
	Now func() time.Time
}

// RunStep runs one step with the default policy (replan on failure). See Executor.Run.
func RunStep(ctx context.Context, step Step, ts []tools.Tool, results Results) StepOutcome {
	return (&Executor{Tools: ts}).Run(ctx, step, results)
}

// Run resolves the references in the step's input, calls its tool (retrying
// per the policy), records each call for the audit, and reads the output: a
// JSON object output may carry "blocked", "reason", "impact", "conclusion"
// (or "summary") and "evidence" (string or list); the Checker, if any, has
// the last word. A step without a tool completes at once, its output being
// its dependencies' results. Run never panics on a tool's behalf and never
// returns an error: failures are in the outcome.
func (e *Executor) Run(ctx context.Context, step Step, results Results) StepOutcome {
	out := StepOutcome{StepID: step.ID, Tool: step.Tool}
	fail := func(kind ErrorKind, err error) StepOutcome {
		out.Status, out.Err, out.ErrKind = StatusFailed, err.Error(), kind
		if e.Policy.Action == OnFailureSkip && ctx.Err() == nil {
			out.Status = StatusSkipped
		}
		return out
	}
	if step.Tool == "" {
		return e.synthesize(step, results)
	}
	tool, ok := FindTool(e.Tools, step.Tool)
	if !ok {
		return fail(ErrKindUnknownTool, fmt.Errorf("unknown tool %q (available: %s)", step.Tool, strings.Join(ToolNames(e.Tools), ", ")))
	}
	in, err := ResolveInput(step.ID, step.Input, results)
	if err != nil {
		kind := ErrKindBadInput
		if errors.Is(err, ErrReference) {
			kind = ErrKindReference
		}
		return fail(kind, err)
	}
	input := ToolInput(in)
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
		if err = ctx.Err(); err != nil {
			break
		}
		rec := AuditRecord{StepID: step.ID, Tool: step.Tool, Attempt: attempt, Input: input, Start: now()}
		output, err = callTool(ctx, tool, input)
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
			out.Status = StatusFailed // retries exhausted: the replanner decides
			out.Err, out.ErrKind = err.Error(), ClassifyError(err)
			return out
		}
		return fail(ClassifyError(err), err)
	}
	out.Status = StatusCompleted
	out.Output = output
	readVerdict(&out, output)
	if e.Checker != nil {
		v := e.Checker(step, output)
		if v.Blocked {
			out.Blocked = true
		}
		if v.Reason != "" {
			out.BlockReason = v.Reason
		}
		if v.Impact != "" {
			out.Impact = v.Impact
		}
		if v.Conclusion != "" {
			out.Conclusion = v.Conclusion
		}
		if len(v.Evidence) > 0 {
			out.Evidence = v.Evidence
		}
	}
	if out.Conclusion == "" {
		out.Conclusion = truncate(output, 200)
	}
	if len(out.Evidence) == 0 {
		out.Evidence = []string{fmt.Sprintf("%s(%s) → %s", step.Tool, truncate(input, 120), truncate(output, 300))}
	}
	if out.Blocked && out.BlockReason == "" {
		out.BlockReason = out.Conclusion
	}
	return out
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

// ToolInput is the string a tool receives for a step's JSON input: a JSON
// string's contents, the compact JSON text of any other value, "" for none.
func ToolInput(in json.RawMessage) string {
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

// synthesize completes a tool-less step with its dependencies' results.
func (e *Executor) synthesize(step Step, results Results) StepOutcome {
	var b strings.Builder
	var ev []string
	for _, d := range step.DependsOn {
		r := results[d]
		fmt.Fprintf(&b, "%s: %s\n", d, r.Result)
		ev = append(ev, r.Evidence...)
	}
	return StepOutcome{StepID: step.ID, Status: StatusCompleted, Conclusion: step.Description, Output: strings.TrimSpace(b.String()), Evidence: ev}
}

// RunSteps runs steps concurrently (each in its own goroutine) against the
// same results and returns their outcomes in the order of steps. It is the
// in-process stand-in for one execute superstep fanned out with Send.
func (e *Executor) RunSteps(ctx context.Context, steps []Step, results Results) []StepOutcome {
	out := make([]StepOutcome, len(steps))
	var wg sync.WaitGroup
	for i, s := range steps {
		wg.Go(func() { out[i] = e.Run(ctx, s, results) })
	}
	wg.Wait()
	return out
}

// ToolCalls counts the tool calls recorded in outcomes.
func ToolCalls(outcomes []StepOutcome) int {
	n := 0
	for _, o := range outcomes {
		n += len(o.Audit)
	}
	return n
}

// Progressed reports whether a round moved the plan: a step completed or was
// skipped, or new evidence appeared.
func Progressed(before Plan, outcomes []StepOutcome) bool {
	for _, o := range outcomes {
		prev, _ := before.Step(o.StepID)
		if o.Status != prev.Status && (o.Status == StatusCompleted || o.Status == StatusSkipped) {
			return true
		}
		for _, e := range o.Evidence {
			if !slices.Contains(prev.Evidence, e) {
				return true
			}
		}
	}
	return false
}
