package nodes

import (
	"fmt"
	"slices"
	"time"

	"github.com/stategraph/stategraph/nodes/plan"
)

// A round is one execute superstep: the planner or the replan node marks
// ready steps running, and each runs as its own execute task. This file
// carries out Budget's rules for a round: which ready steps start, and each
// one's share of the calls left.

// startRound marks the plan's ready steps running and counts them: every
// ready step that calls neither a tool nor the model (a synthesis step),
// and, in plan order, those that do as long as the budgets have calls left
// after u — Budget.MaxToolCalls one tool call for each step that calls
// tools, Budget.MaxModelCalls one model call for each ReAct step; the others
// stay pending for a later round. u must count every call made before the
// round, the calling node's own included. decide stops the run before a
// round when a budget the work left needs is spent (roundInput.Needs, see
// Agent.needs); a spent budget the work left does not need stops nothing,
// and the steps that need no call start. The planner's or a revision's own
// model calls may still spend the last calls a ready step needs: then that
// step does not start, and when no step does, blockedBy names the budget.
//
// With eager rounds (the default) a round holds more than the ready steps: also those
// whose dependencies are in the round (roundSteps), under the same rule.
func (a *Agent) startRound(p plan.Plan, u Usage) (plan.Plan, int) {
	ready := p.Ready()
	if a.eager {
		ready = roundSteps(p)
	}
	if len(ready) == 0 {
		return p, 0
	}
	toolsLeft := toolCallsLeft(a.cfg.Budget, u)
	modelLeft := modelCallsLeft(a.cfg.Budget, u)
	p = p.Clone()
	n := 0
	for _, r := range ready {
		tool, model := a.callsTools(r), a.runsReAct(r)
		if (tool && toolsLeft == 0) || (model && modelLeft == 0) {
			continue
		}
		if a.eager && !depsStarted(p, r) {
			continue // a step it depends on in the round did not start
		}
		if tool && toolsLeft > 0 {
			toolsLeft--
		}
		if model && modelLeft > 0 {
			modelLeft--
		}
		p.Steps[p.Index(r.ID)].Status = plan.StatusRunning
		n++
	}
	return p, n
}

// depsStarted reports whether every dependency of s is completed, skipped
// or running in p.
func depsStarted(p plan.Plan, s plan.Step) bool {
	for _, d := range s.DependsOn {
		ds, ok := p.Step(d)
		if !ok || (ds.Status != plan.StatusCompleted && ds.Status != plan.StatusSkipped && ds.Status != plan.StatusRunning) {
			return false
		}
	}
	return true
}

// blockedBy returns the budget that keeps every ready step of p from
// starting after u (startRound started none), or nil when p has no ready
// step or one could start.
func (a *Agent) blockedBy(p plan.Plan, u Usage) *StopReason {
	b := a.cfg.Budget
	noTool := toolCallsLeft(b, u) == 0
	noModel := modelCallsLeft(b, u) == 0
	var toolStop, modelStop bool
	for _, r := range p.Ready() {
		switch {
		case noTool && a.callsTools(r):
			toolStop = true
		case noModel && a.runsReAct(r):
			modelStop = true
		default:
			return nil
		}
	}
	switch {
	case toolStop:
		return &StopReason{Budget: BudgetToolCalls, Limit: fmt.Sprint(b.MaxToolCalls), Used: fmt.Sprint(u.ToolCalls)}
	case modelStop:
		return &StopReason{Budget: BudgetModelCalls, Limit: fmt.Sprint(b.MaxModelCalls), Used: fmt.Sprint(u.ModelCalls)}
	}
	return nil
}

// needs says which calls the work left in p needs (roundInput.Needs): tool
// calls when a step not completed or skipped calls tools (callsTools),
// model calls when one runs as a ReAct step or when the Responder is not a
// TemplateResponder (the respond node gives a model responder the generic
// template when the budget is spent, but that answer is not the one asked
// for). Failed steps count: a revision most likely runs them again.
func (a *Agent) needs(p plan.Plan) callNeeds {
	_, tmpl := a.cfg.Responder.(TemplateResponder)
	n := callNeeds{ModelCalls: !tmpl}
	for _, s := range p.Steps {
		if s.Status == plan.StatusCompleted || s.Status == plan.StatusSkipped {
			continue
		}
		n.ToolCalls = n.ToolCalls || a.callsTools(s)
		n.ModelCalls = n.ModelCalls || a.runsReAct(s)
	}
	return n
}

// callsTools reports whether running s may call tools: it names a tool, or
// the ReAct executor runs it.
func (a *Agent) callsTools(s plan.Step) bool {
	return s.Tool != "" || a.runsReAct(s)
}

// runsReAct reports whether the ReAct executor runs s, which then calls the
// model.
func (a *Agent) runsReAct(s plan.Step) bool {
	return a.react != nil && a.reactFor(s)
}

// toolCallsLeft is what Budget.MaxToolCalls leaves after u, or -1 when the
// budget sets no limit.
func toolCallsLeft(b Budget, u Usage) int {
	if b.MaxToolCalls <= 0 {
		return -1
	}
	return max(b.MaxToolCalls-u.ToolCalls, 0)
}

// modelCallsLeft is what Budget.MaxModelCalls leaves after u, or -1 when the
// budget sets no limit.
func modelCallsLeft(b Budget, u Usage) int {
	if b.MaxModelCalls <= 0 {
		return -1
	}
	return max(b.MaxModelCalls-u.ModelCalls, 0)
}

// toolShare is the running step id's share (see Budget) of what
// Budget.MaxToolCalls leaves after u, among the running steps of p that
// call tools, or -1 when the budget sets no limit. Every execute task of a
// round computes its share from the same plan and usage (those of its
// Send), so the split does not depend on which task runs first, and a task
// run again on resume gets the same share.
func (a *Agent) toolShare(p plan.Plan, u Usage, id string) int {
	return shareOf(toolCallsLeft(a.cfg.Budget, u), p, id, a.callsTools)
}

// modelShare is the running step id's share (see Budget) of what
// Budget.MaxModelCalls leaves after u, among the running ReAct steps of p,
// or -1 when the budget sets no limit. The planner and replan nodes make their model calls before the
// round starts and the respond node after it ends, so the round's ReAct
// steps are the only ones spending this budget while it runs.
func (a *Agent) modelShare(p plan.Plan, u Usage, id string) int {
	return shareOf(modelCallsLeft(a.cfg.Budget, u), p, id, a.runsReAct)
}

// shareOf splits left (-1: no limit) evenly among the running steps of p that
// spend it, the first in plan order taking one more each when the split is
// uneven, and returns id's part: 0 when id is not among them, -1 when there
// is no limit.
func shareOf(left int, p plan.Plan, id string, spends func(plan.Step) bool) int {
	if left < 0 {
		return -1
	}
	var ids []string
	for _, s := range p.Steps {
		if s.Status == plan.StatusRunning && spends(s) {
			ids = append(ids, s.ID)
		}
	}
	i := slices.Index(ids, id)
	if i < 0 {
		return 0
	}
	n := left / len(ids)
	if i < left%len(ids) {
		n++
	}
	return n
}

// callLimit is the calls (tool calls, or a ReAct step's model calls) a step
// may make given its per-step limit (0: none) and its share of the total
// (-1: none): the smaller one, 0 for no limit, and whether the share is the
// one that binds.
func callLimit(perStep, share int) (limit int, byShare bool) {
	if share < 0 || (perStep > 0 && perStep <= share) {
		return perStep, false
	}
	return share, true
}

// runningTime is the running time of a round's execute tasks: the length of
// the union of their outcomes' [Start, End] intervals, so parallel steps
// count once and a gap in which none ran (a task run again after a pause)
// does not count. Outcomes without times are left out.
func runningTime(outs []StepOutcome) time.Duration {
	type span struct{ start, end time.Time }
	var spans []span
	for _, o := range outs {
		if !o.Start.IsZero() && !o.End.Before(o.Start) {
			spans = append(spans, span{o.Start, o.End})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return x.start.Compare(y.start) })
	var total time.Duration
	var cur span
	for i, s := range spans {
		switch {
		case i == 0:
			cur = s
		case s.start.After(cur.end):
			total += cur.end.Sub(cur.start)
			cur = s
		case s.end.After(cur.end):
			cur.end = s.end
		}
	}
	if len(spans) > 0 {
		total += cur.end.Sub(cur.start)
	}
	return total
}
