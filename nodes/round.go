package nodes

import (
	"slices"
	"time"
)

// A round is one execute superstep: the planner or the replan node marks
// ready steps running, and each runs as its own execute task. The total
// tool-call budget is a hard limit across the parallel tasks of a round: a
// round starts no more steps that call tools than there are calls left, and
// each gets a share of what is left, so the round cannot overspend however
// its steps retry.

// startRound marks the plan's ready steps running and counts them: every
// ready step that calls no tool (a synthesis step), and, in plan order, as
// many of those that do as Budget.MaxToolCalls has calls left after u; the
// others stay pending for a later round. Decide stops the run before a round
// when no call is left, so a round with a ready step always starts one.
func (a *Agent) startRound(p Plan, u Usage) (Plan, int) {
	ready := p.Ready()
	if len(ready) == 0 {
		return p, 0
	}
	left := toolCallsLeft(a.cfg.Budget, u)
	p = p.Clone()
	n := 0
	for _, r := range ready {
		if left >= 0 && a.callsTools(r) {
			if left == 0 {
				continue
			}
			left--
		}
		p.Steps[p.Index(r.ID)].Status = StatusRunning
		n++
	}
	return p, n
}

// callsTools reports whether running s may call tools: it names a tool, or
// the ReAct executor runs it.
func (a *Agent) callsTools(s Step) bool {
	return s.Tool != "" || (a.react != nil && a.reactFor(s))
}

// toolCallsLeft is what Budget.MaxToolCalls leaves after u, or -1 when the
// budget sets no limit.
func toolCallsLeft(b Budget, u Usage) int {
	if b.MaxToolCalls <= 0 {
		return -1
	}
	return max(b.MaxToolCalls-u.ToolCalls, 0)
}

// toolShare is the running step id's share of what Budget.MaxToolCalls
// leaves after u, or -1 when the budget sets no limit: the calls left, split
// evenly among the running steps of p that call tools, the first in plan
// order taking one more each when the split is uneven. The shares add up to
// what is left. Every execute task of a round computes its share from the
// same plan and usage (those of its Send), so the split does not depend on
// which task runs first, and a task run again on resume gets the same share.
func (a *Agent) toolShare(p Plan, u Usage, id string) int {
	left := toolCallsLeft(a.cfg.Budget, u)
	if left < 0 {
		return -1
	}
	var ids []string
	for _, s := range p.Steps {
		if s.Status == StatusRunning && a.callsTools(s) {
			ids = append(ids, s.ID)
		}
	}
	i := slices.Index(ids, id)
	if i < 0 {
		return 0
	}
	share := left / len(ids)
	if i < left%len(ids) {
		share++
	}
	return share
}

// callLimit is the tool calls a step may make given its per-step limit
// (0: none) and its share of the total (-1: none): the smaller one, 0 for no
// limit, and whether the share is the one that binds.
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
