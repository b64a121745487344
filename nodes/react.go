package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// ReActExecutor runs one step as a small ReAct loop with langchaingo tool
// calling: the model sees the step's description, the results of its
// dependencies and the tools (llms.WithTools); each tool call it asks for is
// run and answered, until it replies without tool calls — its reply is the
// step's result. The loop is bounded per step by MaxModelCalls and
// MaxToolCalls; running out fails the step, naming the budget, and the
// replanner decides. Run by the agent (WithReAct), a step also keeps to the
// agent's budgets (see Budget) and may call only the tools the agent's
// guards allow.
//
// Each successful tool call is judged as Executor.Run judges a step's call
// (the output's verdict fields, then Checker): when one shows the route is
// blocked, the completed step reports it (Blocked, BlockReason, Impact)
// for the replanner — unless the loop resolved it, a later call of the
// same tool succeeding without being blocked. A call to a tool that does
// not exist is answered with an error, and is no tool call: not audited,
// not counted, as in Executor.Run.
type ReActExecutor struct {
	Model llms.Model
	// Tools the model may call (the agent's tools when used through WithReAct).
	Tools []tools.Tool
	// MaxModelCalls bounds the loop's iterations (default 5).
	MaxModelCalls int
	// MaxToolCalls bounds the step's tool calls (0: no bound).
	MaxToolCalls int
	// Options are passed to every model call, after the tools.
	Options []llms.CallOption
	// Checker, optional, judges each successful tool call, with the step
	// given the called tool and its input (the agent's Checker when used
	// through WithReAct and left nil).
	Checker Checker
	// Guards, optional, refuse tools and calls: a tool on which a guard
	// finds a problem in a one-step plan (the step with that tool, without
	// input) is not offered to the model, and each call the model asks for
	// is checked as a one-step plan with the call's tool and input: a call
	// a guard refuses is answered with the guard's problem, not made and
	// not audited. WithReAct adds the agent's Guards.
	Guards []plan.Guard
	// Now is the clock for audit records (default time.Now).
	Now func() time.Time
	// ToolTimeouts bounds each tool call, as Executor.ToolTimeouts does
	// (the agent's WithToolTimeout when used through WithReAct and left
	// nil).
	ToolTimeouts map[string]time.Duration
	// MaxParallel bounds how many tool calls of one model reply run at
	// once (default toolnode.DefaultMaxParallel).
	MaxParallel int
	// OutputCap is how many bytes of one tool output the model is shown,
	// as a tool's answer or as a dependency's result (0:
	// 8,000 bytes); a longer one is cut with a marker (CapOutput).
	// The step's audit records keep every output whole.
	OutputCap int

	// byShare says MaxToolCalls is the step's share of the agent's total
	// tool-call budget, which then names that budget when it runs out.
	byShare bool
	// byModelShare says the same of MaxModelCalls and the agent's
	// model-call budget (Budget.MaxModelCalls).
	byModelShare bool
}

// ReActInfo is what a ReAct step spent on the model.
type ReActInfo struct {
	ModelCalls int    `json:"model_calls"`
	Tokens     Tokens `json:"tokens"`
}

// defaultReActModelCalls bounds a ReAct step when MaxModelCalls is zero.
const defaultReActModelCalls = 5

// Run runs the step. Like Executor.Run it never panics and reports every
// failure in the outcome: a model error, an unknown tool (answered to the
// model as an error, so it can correct itself), a spent per-step budget.
func (r *ReActExecutor) Run(ctx context.Context, step plan.Step, results plan.Results) (StepOutcome, ReActInfo) {
	out := StepOutcome{StepID: step.ID, Tool: step.Tool}
	var info ReActInfo
	fail := func(kind plan.ErrorKind, err error) (StepOutcome, ReActInfo) {
		out.Status, out.Err, out.ErrKind = plan.StatusFailed, err.Error(), kind
		return out, info
	}
	if r.Model == nil {
		return fail(plan.ErrKindOther, fmt.Errorf("nodes: react step %q: no model configured", step.ID))
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	maxModel := r.MaxModelCalls
	if maxModel <= 0 {
		maxModel = defaultReActModelCalls
	}
	allowed := r.allowedTools(step)
	opts := append([]llms.CallOption{llms.WithTools(toolnode.Definitions(allowed))}, r.Options...)
	history := []chat.Message{
		chat.System("You carry out one step of a plan. Call the tools you need, then reply with the step's result in plain text, without tool calls."),
		chat.Human(reactPrompt(step, results, r.OutputCap)),
	}
	var judged []judgedCall // of the successful tool calls, in order
	for {
		if ctx.Err() != nil {
			// Cancelled, or cut off by a step timeout (timeout) or the
			// wall-time budget: the cause says which.
			cause := context.Cause(ctx)
			return fail(plan.ClassifyError(cause), fmt.Errorf("step %q: %w", step.ID, cause))
		}
		if stop := wallSpent(ctx, now()); stop != nil {
			return fail(plan.ErrKindOther, fmt.Errorf("step %q: %v, before model call %d", step.ID, stop, info.ModelCalls+1))
		}
		if info.ModelCalls >= maxModel {
			if r.byModelShare {
				return fail(plan.ErrKindOther, fmt.Errorf("step %q: stopped by its share of budget %s: used %d of %d, before a final answer", step.ID, BudgetModelCalls, info.ModelCalls, maxModel))
			}
			return fail(plan.ErrKindOther, fmt.Errorf("step %q: per-step model budget spent (%d calls) before a final answer", step.ID, maxModel))
		}
		resp, calls, err := callModel(ctx, r.Model, chat.Contents(history), opts...)
		info.ModelCalls += calls // a ResilientModel's retries included
		info.Tokens = info.Tokens.Add(tokensOf(resp))
		if calls == 0 && errors.Is(err, ErrModelBudget) && r.byModelShare {
			return fail(plan.ErrKindOther, fmt.Errorf("step %q: stopped by its share of budget %s: used %d of %d, before a final answer", step.ID, BudgetModelCalls, info.ModelCalls, maxModel))
		}
		if err != nil {
			return fail(plan.ClassifyError(err), fmt.Errorf("step %q: model call %d: %w", step.ID, info.ModelCalls, err))
		}
		if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return fail(plan.ErrKindOther, fmt.Errorf("step %q: empty response from model", step.ID))
		}
		choice := resp.Choices[0]
		if len(choice.ToolCalls) == 0 {
			out.Status = plan.StatusCompleted
			out.Output = strings.TrimSpace(choice.Content)
			out.Conclusion = text.Truncate(out.Output, 200)
			for i, v := range judged {
				out.Evidence = append(out.Evidence, v.Evidence...)
				if v.Blocked && !out.Blocked && !resolvedLater(judged, i) {
					out.Blocked, out.BlockReason, out.Impact = true, v.Reason, v.Impact
				}
			}
			if len(out.Evidence) == 0 {
				out.Evidence = []string{"model: " + text.Truncate(out.Output, 300)}
			}
			return out, info
		}
		ai := chat.AI(choice.Content, choice.ToolCalls...)
		history = append(history, ai)
		answers, verdicts, stop := r.runCalls(ctx, step, ai, allowed, now, &out)
		if stop != nil {
			return fail(stop.kind, stop.err)
		}
		history = append(history, answers...)
		for i, v := range verdicts {
			if v != nil {
				judged = append(judged, judgedCall{Verdict: *v, tool: toolName(choice.ToolCalls[i])})
			}
		}
	}
}

// resolvedLater reports whether the blocked call judged[i] was resolved by
// the loop: a later successful call of the same tool was not blocked (the
// model tried warehouse A, found no stock, and found it at B).
func resolvedLater(judged []judgedCall, i int) bool {
	for _, v := range judged[i+1:] {
		if v.tool == judged[i].tool && !v.Blocked {
			return true
		}
	}
	return false
}

func toolName(tc llms.ToolCall) string {
	if tc.FunctionCall == nil {
		return ""
	}
	return tc.FunctionCall.Name
}

// judgedCall is the verdict of one successful tool call of a ReAct step.
type judgedCall struct {
	Verdict
	tool string
}

// stepStop is why a batch of tool calls fails the step.
type stepStop struct {
	kind plan.ErrorKind
	err  error
}

// callPlan is what runCalls decided about one call before the batch runs.
type callPlan struct {
	name, input string
	refused     string // why the guards refuse it ("": they do not)
	counted     bool   // a call of an allowed tool: audited, counted
}

// runCalls runs the tool calls of ai through toolnode.Run (concurrently,
// at most MaxParallel at once, the answers in call order), records each
// call made and returns the tool messages that answer them and, per call,
// its verdict when it succeeded (judgeCall). A call to a tool the guards
// refuse, with its input (refusal), is answered with the refusal and
// neither made nor recorded; so is a call to a tool that does not exist.
// The calls are counted in order against MaxToolCalls: the first that
// would exceed it, and the calls after it, are not made, and the step
// fails naming the budget, as it does when the wall-time budget is spent
// before a call starts; the calls made are audited in call order.
func (r *ReActExecutor) runCalls(ctx context.Context, step plan.Step, ai chat.Message, allowed []tools.Tool, now func() time.Time, out *StepOutcome) ([]chat.Message, []*Verdict, *stepStop) {
	calls := ai.ToolCalls()
	plans := make([]callPlan, len(calls))
	made := len(out.Audit)
	var over *stepStop
	for i, tc := range calls {
		p := &plans[i]
		p.name = toolName(tc)
		p.input = r.toolInput(allowed, tc)
		// The call is checked as the one-step plan it is, with its input:
		// a guard may refuse a tool for some inputs only.
		p.refused = r.refusal(step, p.name, inputJSON(p.input))
		_, known := plan.FindTool(allowed, p.name)
		p.counted = p.refused == "" && known
		if r.MaxToolCalls > 0 && made >= r.MaxToolCalls {
			if r.byShare {
				over = &stepStop{plan.ErrKindOther, fmt.Errorf("step %q: stopped by its share of budget %s: used %d of %d", step.ID, BudgetToolCalls, made, r.MaxToolCalls)}
			} else {
				over = &stepStop{plan.ErrKindOther, fmt.Errorf("step %q: stopped by budget %s: used %d of %d", step.ID, BudgetToolCallsPerStep, made, r.MaxToolCalls)}
			}
			calls = calls[:i] // this call and the later ones are not made
			break
		}
		if p.counted {
			made++
		}
	}
	if stop := wallSpent(ctx, now()); stop != nil && len(calls) > 0 {
		return nil, nil, &stepStop{plan.ErrKindOther, fmt.Errorf("step %q: %v, before tool call %d", step.ID, stop, len(out.Audit)+1)}
	}
	recs := make([]*AuditRecord, len(calls))
	verdicts := make([]*Verdict, len(calls))
	var mu sync.Mutex
	var late *stepStop // the wall-time budget ran out before a call started
	hook := func(ctx context.Context, tc llms.ToolCall, run func(context.Context) (string, error)) (string, error) {
		i, _ := toolnode.CallIndex(ctx)
		p := plans[i]
		if p.refused != "" {
			return "", fmt.Errorf("tool %q refused, not called: %s", p.name, p.refused)
		}
		if stop := wallSpent(ctx, now()); stop != nil {
			mu.Lock()
			late = &stepStop{plan.ErrKindOther, fmt.Errorf("step %q: %v, before tool call %d", step.ID, stop, len(out.Audit)+1)}
			mu.Unlock()
			return "", stop
		}
		rec := AuditRecord{StepID: step.ID, Tool: p.name, Input: p.input, Start: now()}
		cctx, cancel := toolContext(ctx, p.name, r.ToolTimeouts)
		result, err := run(cctx)
		err = callError(cctx, err)
		cancel()
		rec.End = now()
		rec.Duration = rec.End.Sub(rec.Start)
		rec.Output, rec.Status = result, AuditOK
		if err != nil {
			rec.Status, rec.Error = AuditError, err.Error()
		}
		recs[i] = &rec
		if err != nil {
			return "", err
		}
		called := plan.Step{ID: step.ID, Description: step.Description, Tool: p.name, Input: inputJSON(p.input), DependsOn: step.DependsOn}
		v := judgeCall(called, p.input, result, r.Checker)
		verdicts[i] = &v
		return CapOutput(result, r.OutputCap), nil // the audit record keeps it whole
	}
	onError := func(tc llms.ToolCall, err error) (string, error) {
		if errors.Is(err, toolnode.ErrUnknownTool) {
			// Not a tool call: nothing was called, as in Executor.Run, so
			// it is neither audited nor counted against the budgets. The
			// guards are asked first, as for a tool that exists.
			name := toolName(tc)
			if why := r.refusal(step, name, inputJSON(r.toolInput(allowed, tc))); why != "" {
				return fmt.Sprintf("error: tool %q refused, not called: %s", name, why), nil
			}
			return fmt.Sprintf("error: unknown tool %q (available: %s)", toolName(tc), strings.Join(plan.ToolNames(allowed), ", ")), nil
		}
		return "error: " + CapOutput(err.Error(), r.OutputCap), nil
	}
	msg := ai
	if len(calls) < len(ai.ToolCalls()) {
		msg = chat.AI("", calls...)
	}
	var answers []chat.Message
	var err error
	if len(calls) > 0 {
		answers, err = toolnode.Run(ctx, []chat.Message{msg}, allowed,
			toolnode.WithCallHook(hook), toolnode.WithErrorHandler(onError), toolnode.WithMaxParallel(r.maxParallel()))
	}
	for _, rec := range recs {
		if rec != nil {
			rec.Attempt = len(out.Audit) + 1
			out.Audit = append(out.Audit, *rec)
		}
	}
	out.Attempts = len(out.Audit)
	switch {
	case err != nil && ctx.Err() != nil: // cancelled: the loop reports the cause
		return nil, nil, nil
	case err != nil:
		return nil, nil, &stepStop{plan.ErrKindOther, fmt.Errorf("step %q: %w", step.ID, err)}
	case late != nil:
		return nil, nil, late
	case over != nil:
		return nil, nil, over
	}
	return answers, verdicts, nil
}

// toolInput is the input a call passes to its tool: the arguments for a
// tool.SchemaTool, else the "input" string of the arguments (or the
// arguments themselves), as toolnode passes it.
func (r *ReActExecutor) toolInput(allowed []tools.Tool, tc llms.ToolCall) string {
	args := ""
	if tc.FunctionCall != nil {
		args = tc.FunctionCall.Arguments
	}
	if t, ok := plan.FindTool(allowed, toolName(tc)); ok && inputSchemaOf(t) != nil {
		return args
	}
	var a struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Input != nil {
		return *a.Input
	}
	return args
}

func (r *ReActExecutor) maxParallel() int {
	if r.MaxParallel > 0 {
		return r.MaxParallel
	}
	return toolnode.DefaultMaxParallel
}

// allowedTools returns the tools step may call: those the guards do not
// refuse (refusal).
func (r *ReActExecutor) allowedTools(step plan.Step) []tools.Tool {
	if len(r.Guards) == 0 {
		return r.Tools
	}
	var ok []tools.Tool
	for _, t := range r.Tools {
		if r.refusal(step, t.Name(), nil) == "" {
			ok = append(ok, t)
		}
	}
	return ok
}

// refusal returns why the guards refuse step calling the named tool with
// input (nil: the tool whatever its input, to decide whether to offer it) —
// the problems they find in a plan of that one step, not yet run — or "".
func (r *ReActExecutor) refusal(step plan.Step, tool string, input json.RawMessage) string {
	if len(r.Guards) == 0 {
		return ""
	}
	probe := plan.Plan{Steps: []plan.Step{{ID: step.ID, Description: step.Description, Tool: tool, Input: input}}}
	var why []string
	for _, g := range r.Guards {
		for _, p := range g(probe) {
			why = append(why, p.Message)
		}
	}
	return strings.Join(why, "; ")
}

// inputJSON is a tool's input string as a step's JSON input: the text
// itself when it is JSON, else a JSON string (the inverse of toolInputOf).
func inputJSON(input string) json.RawMessage {
	if json.Valid([]byte(input)) {
		return json.RawMessage(input)
	}
	b, _ := json.Marshal(input)
	return b
}

// reactPrompt is the step's task with the results of its dependencies.
func reactPrompt(step plan.Step, results plan.Results, outputCap int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Step %s: %s\n", step.ID, step.Description)
	if len(step.Input) > 0 {
		fmt.Fprintf(&b, "Input: %s\n", step.Input)
	}
	for _, d := range step.DependsOn {
		if r, ok := results[d]; ok && r.Status == plan.StatusCompleted {
			fmt.Fprintf(&b, "Result of %s (%s): %s\n", d, r.Description, CapOutput(r.Result, outputCap))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
