package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/tools"
)

// Score is a plan's quality in [0, 1] and its parts, with the problems that
// lowered it, so a planner can re-ask the model with the problems listed.
type Score struct {
	Overall       float64   `json:"overall"`
	Completeness  float64   `json:"completeness"`  // has steps, ends in something that answers the goal
	Executability float64   `json:"executability"` // share of steps whose tool exists and whose input is usable JSON
	Dependencies  float64   `json:"dependencies"`  // dependencies and references well-formed, no cycle
	Problems      []Problem `json:"problems,omitempty"`
}

// Valid reports whether none of the problems is a validation error (the
// soft "incomplete" problems do not count).
func (s Score) Valid() bool {
	return !slices.ContainsFunc(s.Problems, func(p Problem) bool { return p.Kind != ProblemIncomplete })
}

// Passes reports whether the plan is valid and scores at least threshold.
func (s Score) Passes(threshold float64) bool { return s.Valid() && s.Overall >= threshold }

// answerWords mark a step that answers the goal.
var answerWords = []string{"answer", "respond", "reply", "summar", "report", "recommend", "conclu", "final", "synthes",
	"回答", "答复", "汇总", "总结", "报告", "建议", "结论", "输出"}

// ScoreOf scores a plan against the tools (nil tools: tool names not checked).
//
//   - completeness: 0 without steps; otherwise 1, less 0.4 when no final step
//     (one nothing depends on) answers the goal — a tool-less synthesis step or
//     one whose description says answer/summarize/report/recommend —, less 0.2
//     when a step has no description, less 0.1 when there are more than 15 steps;
//   - executability: the share of steps with a known tool (or none) and usable input;
//   - dependencies: 1 less 0.25 per dependency or reference problem, 0 with a cycle.
//
// Overall is the mean of the three. Problems holds every validation problem
// plus the completeness ones (kind incomplete).
func ScoreOf(p Plan, ts []tools.Tool) Score {
	probs := Check(p, ts)
	s := Score{Problems: probs}
	n := len(p.Steps)
	if n == 0 {
		return s
	}
	// Completeness.
	c := 1.0
	incomplete := func(penalty float64, id, format string, args ...any) {
		c -= penalty
		s.Problems = append(s.Problems, Problem{StepID: id, Kind: ProblemIncomplete, Message: fmt.Sprintf(format, args...)})
	}
	used := map[string]bool{}
	for _, st := range p.Steps {
		for _, d := range st.DependsOn {
			used[d] = true
		}
	}
	answers := false
	for _, st := range p.Steps {
		if used[st.ID] {
			continue
		}
		d := strings.ToLower(st.Description)
		if st.Tool == "" || slices.ContainsFunc(answerWords, func(w string) bool { return strings.Contains(d, w) }) {
			answers = true
		}
	}
	if !answers {
		incomplete(0.4, "", "no final step answers the goal: end with a step (tool \"\" allowed) that summarizes the results into the answer")
	}
	for _, st := range p.Steps {
		if strings.TrimSpace(st.Description) == "" {
			incomplete(0.2, st.ID, "has no description")
			break
		}
	}
	if n > 15 {
		incomplete(0.1, "", "%d steps: too many, merge some", n)
	}
	s.Completeness = clamp01(c)
	// Executability and dependencies.
	bad := map[string]bool{} // steps (by id, or #index without one) that cannot run as written
	for i, st := range p.Steps {
		if strings.TrimSpace(st.ID) == "" {
			bad[fmt.Sprintf("#%d", i+1)] = true
		}
	}
	dep := 1.0
	for _, pr := range probs {
		switch pr.Kind {
		case ProblemUnknownTool, ProblemInvalidInput, ProblemDuplicateID, ProblemInvalidStatus:
			bad[pr.StepID] = true
		case ProblemCycle:
			dep = 0
		case ProblemMissingDependency, ProblemSelfReference, ProblemForwardReference, ProblemUndeclaredRef:
			dep -= 0.25
		}
	}
	s.Executability = clamp01(1 - float64(len(bad))/float64(n))
	s.Dependencies = clamp01(dep)
	s.Overall = (s.Completeness + s.Executability + s.Dependencies) / 3
	return s
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }
