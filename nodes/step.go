package nodes

import (
	"context"
	"time"

	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
)

// stepRun is what running one step of a round left: its outcome, with its
// audit records, and the model calls and tokens it spent (its tool calls
// are its audit records). Ran is false for a step that was not run (no
// share of a budget left, or the wall-time budget spent): it has no
// outcome and stays pending. It is what an eager round saves of each step
// (graph.Durable), so it marshals to JSON.
type stepRun struct {
	Ran     bool        `json:"ran"`
	Outcome StepOutcome `json:"outcome"`
	Usage   Usage       `json:"usage"`
}

// writes are the state writes of one step's run: its outcome, its audit
// records and its usage.
func (r stepRun) writes() state.Update[AgentState] {
	out := r.Outcome
	audit := out.Audit
	out.Audit = nil
	delta := r.Usage
	delta.ToolCalls = len(audit)
	return state.Writes(
		fieldPastSteps.Set([]StepOutcome{out}),
		fieldAudit.Set(audit),
		fieldUsage.Set(delta),
	)
}

// runStep runs one running step of s.Plan against results, started at
// start, within its shares of the budgets computed from s.Plan and s.Usage
// (those the round started with), its wall-time deadline counted from
// roundStart, the moment the round's task started. It returns an error only when ctx was
// cancelled before the step completed: the task fails, and a resume runs
// the step again rather than recording a failure the step did not cause.
func (a *Agent) runStep(ctx context.Context, s AgentState, step plan.Step, results plan.Results, roundStart, start time.Time) (stepRun, error) {
	share := a.toolShare(s.Plan, s.Usage, step.ID)
	if share == 0 && a.callsTools(step) {
		return stepRun{}, nil
	}
	modelShare := a.modelShare(s.Plan, s.Usage, step.ID)
	if modelShare == 0 && a.runsReAct(step) {
		return stepRun{}, nil
	}
	if limit := a.cfg.Budget.MaxWall; limit > 0 {
		ctx = withWallDeadline(ctx, roundStart.Add(limit-s.Usage.Wall), limit, start, a.now)
		if wallSpent(ctx, start) != nil && (a.callsTools(step) || a.runsReAct(step)) {
			return stepRun{}, nil // stays pending; the replan node stops the run
		}
	}
	sctx, stopStep := a.stepContext(ctx)
	defer stopStep()
	step.Status = plan.StatusPending
	var out StepOutcome
	var delta Usage
	if a.runsReAct(step) {
		r := *a.react
		r.MaxToolCalls, r.byShare = callLimit(r.MaxToolCalls, share)
		perStep := r.MaxModelCalls
		if perStep <= 0 {
			perStep = defaultReActModelCalls
		}
		r.MaxModelCalls, r.byModelShare = callLimit(perStep, modelShare)
		rctx := streaming(sctx, a.stream, NodeExecute, step.ID)
		if r.byModelShare {
			// A ResilientModel's retries are model calls too: the
			// step's share bounds them all.
			rctx, _ = withModelCalls(rctx, r.MaxModelCalls)
		}
		var info ReActInfo
		out, info = r.Run(rctx, step, results)
		delta.ModelCalls = info.ModelCalls
		delta = delta.AddTokens(info.Tokens)
	} else {
		e := *a.exec
		e.MaxToolCallsPerStep, _ = callLimit(e.MaxToolCallsPerStep, share)
		out = e.Run(sctx, step, results)
		if out.abort != nil {
			return stepRun{}, out.abort
		}
	}
	out.Start, out.End = start, a.now()
	if err := ctx.Err(); err != nil && out.Status != plan.StatusCompleted {
		return stepRun{}, err
	}
	return stepRun{Ran: true, Outcome: out, Usage: delta}, nil
}
