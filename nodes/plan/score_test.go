package plan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScorePlan(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "summarize")
	tests := []struct {
		name                      string
		steps                     []Step
		overall, comp, exec, deps float64
		valid                     bool
		problem                   ProblemKind
	}{
		{"good: ends in an answer step", []Step{st("a", "search", `"x"`), st("b", "", "", "a")}, 1, 1, 1, 1, true, ""},
		{"good: ends in a summarizing tool", []Step{st("a", "search", ""), {ID: "b", Description: "Summarize the findings", Tool: "summarize", DependsOn: []string{"a"}}}, 1, 1, 1, 1, true, ""},
		{"empty", nil, 0, 0, 0, 0, false, ProblemEmptyPlan},
		{"no final answer", []Step{st("a", "search", ""), st("b", "search", "", "a")}, (0.6 + 1 + 1) / 3, 0.6, 1, 1, true, ProblemIncomplete},
		{"unknown tool", []Step{st("a", "nope", ""), st("b", "", "", "a")}, (1 + 0.5 + 1) / 3, 1, 0.5, 1, false, ProblemUnknownTool},
		{"bad input", []Step{st("a", "search", `{`), st("b", "", "", "a")}, (1 + 0.5 + 1) / 3, 1, 0.5, 1, false, ProblemInvalidInput},
		{"missing dependency", []Step{st("a", "search", "", "x"), st("b", "", "", "a")}, (1 + 1 + 0.75) / 3, 1, 1, 0.75, false, ProblemMissingDependency},
		{"cycle", []Step{st("a", "search", "", "b"), st("b", "search", "", "a"), st("c", "", "")}, 2.0 / 3, 1, 1, 0, false, ProblemCycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ScoreOf(Plan{Goal: "g", Steps: tt.steps}, ts)
			require.InDelta(t, tt.overall, s.Overall, 1e-9)
			require.InDelta(t, tt.comp, s.Completeness, 1e-9)
			require.InDelta(t, tt.exec, s.Executability, 1e-9)
			require.InDelta(t, tt.deps, s.Dependencies, 1e-9)
			require.Equal(t, tt.valid, s.Valid())
			if tt.problem == "" {
				require.Empty(t, s.Problems)
				require.True(t, s.Passes(0.99))
			} else {
				require.True(t, containsKind(s.Problems, tt.problem), "%v", s.Problems)
				require.False(t, s.Passes(0.99))
			}
		})
	}
}

func containsKind(ps []Problem, k ProblemKind) bool {
	for _, p := range ps {
		if p.Kind == k {
			return true
		}
	}
	return false
}
