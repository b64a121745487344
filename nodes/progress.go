package nodes

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/nodes/internal/text"
	"github.com/stategraph/stategraph/nodes/plan"
)

// progressed reports whether a round moved the plan: a step completed or was
// skipped, or new evidence appeared. A step that completes by repeating
// finished work — a completed step of before with the same tool, the same
// input once resolved, and every piece of its evidence — is not progress,
// and evidence already on a step of before is not new, whichever step
// found it: checking the same thing again under a new step id moves
// nothing. A round made only of such repeats (onlyRepeated) is not
// progress, but the agent does not count it against
// Budget.MaxRoundsWithoutProgress either: a revision may have asked for the
// work again (FullReplan's steps may not depend on the kept ones).
func progressed(before plan.Plan, outcomes []StepOutcome) bool {
	known := map[string]bool{}
	for _, s := range before.Steps {
		for _, e := range s.Evidence {
			known[e] = true
		}
	}
	results := before.Results()
	for _, o := range outcomes {
		prev, _ := before.Step(o.StepID)
		if o.Status != prev.Status && (o.Status == plan.StatusCompleted || o.Status == plan.StatusSkipped) &&
			!(o.Status == plan.StatusCompleted && repeatsFinishedWork(before, results, prev, o)) {
			return true
		}
		for _, e := range o.Evidence {
			if !known[e] {
				return true
			}
		}
	}
	return false
}

// onlyRepeated reports whether a round only redid finished work: it has
// outcomes, and each completed its step by repeating a completed step of
// before (same tool, resolved input and evidence, as progressed judges),
// without showing the route blocked. A round with a failed step, a
// blocked one, or anything new is not. The agent leaves the no-progress
// streak as it was after such a round (see Budget.MaxRoundsWithoutProgress):
// a revision that starts over redoes lookups before it reaches new work,
// while a revision loop still ends, each revision following a round that
// failed or was blocked.
func onlyRepeated(before plan.Plan, outcomes []StepOutcome) bool {
	if len(outcomes) == 0 {
		return false
	}
	results := before.Results()
	for _, o := range outcomes {
		prev, _ := before.Step(o.StepID)
		if o.Status != plan.StatusCompleted || o.Blocked || prev.Status == plan.StatusCompleted ||
			!repeatsFinishedWork(before, results, prev, o) {
			return false
		}
	}
	return true
}

// repeatsFinishedWork reports whether step s, completed with outcome o,
// did what a completed step of p had done: same tool, same resolved input
// (compared as canonical JSON), and no evidence that step lacks.
func repeatsFinishedWork(p plan.Plan, results plan.Results, s plan.Step, o StepOutcome) bool {
	if s.Tool == "" {
		return false // a synthesis step's work is the answer, not a check
	}
	in, ok := canonicalInput(s, results)
	if !ok {
		return false
	}
	for _, d := range p.Steps {
		if d.ID == s.ID || d.Status != plan.StatusCompleted || d.Tool != s.Tool {
			continue
		}
		if din, ok := canonicalInput(d, results); !ok || din != in {
			continue
		}
		if !slices.ContainsFunc(o.Evidence, func(e string) bool { return !slices.Contains(d.Evidence, e) }) {
			return true
		}
	}
	return false
}

// canonicalInput is s's input with its references resolved, as compact JSON
// with sorted keys, so equal inputs compare equal however they were written.
func canonicalInput(s plan.Step, results plan.Results) (string, bool) {
	in, err := plan.ResolveInput(s.ID, s.Input, results)
	if err != nil {
		return "", false
	}
	if len(in) == 0 {
		return "", true
	}
	dec := json.NewDecoder(strings.NewReader(string(in)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(in), true
	}
	c, err := text.CompactJSON(v)
	if err != nil {
		return string(in), true
	}
	return string(c), true
}
