package plan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	ts := testTools("search", "read_file")
	tests := []struct {
		name  string
		steps []Step
		want  []Problem
	}{
		{"empty plan", nil, []Problem{{Kind: ProblemEmptyPlan, Message: "the plan has no steps"}}},
		{"missing id", []Step{{Description: "x", Tool: "search"}}, []Problem{{Kind: ProblemMissingID, Message: `step 1 ("x") has no id`}}},
		{"duplicate id", []Step{st("a", "search", ""), st("a", "search", "")}, []Problem{{StepID: "a", Kind: ProblemDuplicateID, Message: "duplicate id: steps 1 and 2 share it"}}},
		{"unknown tool", []Step{st("a", "serch", "")}, []Problem{{StepID: "a", Kind: ProblemUnknownTool, Message: `unknown tool "serch" (available: search, read_file); did you mean "search"?`}}},
		{"missing dependency", []Step{st("a", "search", "", "zz")}, []Problem{{StepID: "a", Kind: ProblemMissingDependency, Message: `depends on "zz", which is not in the plan`}}},
		{"self dependency", []Step{st("a", "search", "", "a")}, []Problem{{StepID: "a", Kind: ProblemSelfReference, Message: "depends on itself"}}},
		{"self reference in input", []Step{st("a", "search", `{"q":"{{a.result}}"}`)}, []Problem{{StepID: "a", Kind: ProblemSelfReference, Message: "input references its own result {{a.result}}"}}},
		{"forward reference", []Step{st("a", "search", `{"q":"{{b.result.x}}"}`), st("b", "search", "")},
			[]Problem{{StepID: "a", Kind: ProblemForwardReference, Message: "input references {{b.result.x}}, a later step that is not in depends_on"}}},
		{"undeclared reference", []Step{st("a", "search", ""), st("b", "search", `"{{a.result}}"`)},
			[]Problem{{StepID: "b", Kind: ProblemUndeclaredRef, Message: `input references {{a.result}}, but "a" is not in depends_on`}}},
		{"reference to unknown step", []Step{st("a", "search", `"{{zz.result}}"`)},
			[]Problem{{StepID: "a", Kind: ProblemMissingDependency, Message: `input references {{zz.result}}, but there is no step "zz"`}}},
		{"cycle", []Step{st("a", "search", "", "c"), st("b", "search", "", "a"), st("c", "search", "", "b")},
			[]Problem{{StepID: "a", Kind: ProblemCycle, Message: "dependency cycle: a → b → c → a"}}},
		{"invalid JSON input", []Step{st("a", "search", `{"q":`)}, []Problem{{StepID: "a", Kind: ProblemInvalidInput, Message: `input is not valid JSON: {"q":`}}},
		{"string input that looks like broken JSON", []Step{st("a", "search", `"{\"q\": 1,}"`)},
			[]Problem{{StepID: "a", Kind: ProblemInvalidInput, Message: "input is a string that looks like JSON but is not: invalid character '}' looking for beginning of object key string"}}},
		{"invalid status", []Step{{ID: "a", Tool: "search", Status: "done"}}, []Problem{{StepID: "a", Kind: ProblemInvalidStatus, Message: `unknown status "done"`}}},
		{"several at once", []Step{st("a", "nope", "", "a"), st("a", "search", "")}, []Problem{
			{StepID: "a", Kind: ProblemDuplicateID, Message: "duplicate id: steps 1 and 2 share it"},
			{StepID: "a", Kind: ProblemUnknownTool, Message: `unknown tool "nope" (available: search, read_file)`},
			{StepID: "a", Kind: ProblemSelfReference, Message: "depends on itself"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Validate(Plan{Goal: "g", Steps: tt.steps}, ts)
			require.ErrorIs(t, err, ErrInvalid)
			var pe *ValidationError
			require.True(t, errors.As(err, &pe))
			require.Equal(t, tt.want, pe.Problems)
			require.True(t, pe.Has(tt.want[0].Kind))
			if tt.want[0].StepID != "" {
				require.Contains(t, err.Error(), `step "`+tt.want[0].StepID+`"`)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	ts := testTools("search")
	tests := []struct {
		name  string
		steps []Step
		tools []tools.Tool
	}{
		{"chain with references", []Step{st("a", "search", `"x"`), st("b", "search", `{"q":"{{a.result}} and {{a.result.k}}"}`, "a"), st("c", "", "", "b")}, ts},
		{"transitive reference", []Step{st("a", "search", ""), st("b", "search", "", "a"), st("c", "search", `"{{a.result}}"`, "b")}, ts},
		{"forward dependency, still a DAG", []Step{st("b", "search", `"{{a.result}}"`, "a"), st("a", "search", "")}, ts},
		{"nil tools skip the tool check", []Step{st("a", "anything", "")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, Validate(Plan{Steps: tt.steps}, tt.tools))
		})
	}
}

func TestTopoOrder(t *testing.T) {
	t.Parallel()
	p := Plan{Steps: []Step{st("d", "", "", "b", "c"), st("b", "t", "", "a"), st("c", "t", "", "a"), st("a", "t", "")}}
	order, err := TopoOrder(p)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "d"}, order)

	_, err = TopoOrder(Plan{Steps: []Step{st("x", "t", "", "y"), st("y", "t", "", "x")}})
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "dependency cycle: x → y → x")
}

func TestClosestName(t *testing.T) {
	t.Parallel()
	names := []string{"order_lookup", "stock_check", "shipping_quote"}
	for in, want := range map[string]string{
		"orderLookup": "order_lookup", "stock-check": "stock_check", "stock_chek": "stock_check",
		"quote": "shipping_quote", "weather": "", "": "",
	} {
		require.Equal(t, want, ClosestName(in, names), in)
	}
}

// Validate names the reference to write; for a look-alike whose second part
// is a misspelling of "result" it suggests a field of the result instead.
func TestValidateSuggestsTheResultForAMisspelledResult(t *testing.T) {
	t.Parallel()
	p := Plan{Goal: "g", Steps: []Step{
		st("order", "a", `{}`),
		st("b", "a", `{"w":"{{order.Result.warehouse}}"}`, "order"),
		st("c", "a", `{"w":"{{order.results}}"}`, "order"),
	}}
	err := Validate(p, testTools("a"))
	require.ErrorIs(t, err, ErrInvalid)
	require.Contains(t, err.Error(), "write {{order.result.warehouse}}")
	require.Contains(t, err.Error(), "write {{order.result}}")
	require.NotContains(t, err.Error(), "result.Result")
	require.NotContains(t, err.Error(), "result.results")
}

func TestValidateNamesMisspelledReferences(t *testing.T) {
	t.Parallel()
	ts := testTools("read_csv", "clean")
	tests := []struct {
		name  string
		input string
		want  string // "" for no problem
	}{
		{"the seeds' syntax", `{"data":"{{step_1_result}}"}`, "write {{step_1.result}}"},
		{"the seeds' syntax with a field", `{"path":"{{step_1_result.path}}"}`, "write {{step_1.result.path}}"},
		{"a step id without result", `{"path":"{{step_1.path}}"}`, "write {{step_1.result.path}}"},
		{"_result of no step", `"{{step_9_result}}"`, "write {{step_id.result}} or {{step_id.result.field}}"},
		{"a reference", `{"path":"{{step_1.result.path}}"}`, ""},
		{"a placeholder that names no step is the tool's business", `{"template":"Dear {{name}}"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Plan{Steps: []Step{st("step_1", "read_csv", `{}`), st("step_2", "clean", tt.input, "step_1")}}
			err := Validate(p, ts)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var pe *ValidationError
			require.ErrorAs(t, err, &pe)
			require.True(t, pe.Has(ProblemInvalidInput))
			require.ErrorContains(t, err, "which is not a reference and would reach the tool as text; "+tt.want)
		})
	}
}
