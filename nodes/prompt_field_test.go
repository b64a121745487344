package nodes_test

import (
	"testing"
	"text/template"

	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
)

// A planner, partial replanner or responder given its own Prompt asks the
// model with it, filled with the prompt data; without one it asks with the
// package's prompt.
func TestAPromptFieldReplacesThePackagesPrompt(t *testing.T) {
	t.Parallel()
	mine := template.Must(template.New("mine").Parse(`MINE goal={{.Goal}} constraints={{range .Constraints}}[{{.}}]{{end}}`))

	t.Run("planner", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			prompt *template.Template
			want   string
		}{{mine, "MINE goal=find go constraints=[be quick]"}, {nil, "You are a planner"}} {
			m := &scriptedModel{replies: []string{goodPlan}}
			_, _, err := (&nodes.LLMPlanner{Model: m, Tools: testTools("search"), Prompt: tc.prompt}).Plan(t.Context(), nodes.PlanRequest{Goal: "find go", Constraints: []string{"be quick"}})
			require.NoError(t, err)
			require.Len(t, m.prompts, 1)
			require.Contains(t, m.prompts[0], tc.want)
		}
	})

	t.Run("partial replanner", func(t *testing.T) {
		t.Parallel()
		ts := testTools("search", "fetch")
		p := plan.Plan{Goal: "g", Constraints: []string{"c1"}, Steps: []plan.Step{done(st("a", "search", `"q"`), "ra", "ea"), st("b", "fetch", "", "a"), st("z", "", "", "b")}}
		req := nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerFailed, StepID: "b", Error: "boom"}, Tools: ts}
		for _, tc := range []struct {
			prompt *template.Template
			want   string
		}{{mine, "MINE goal=g constraints=[c1]"}, {nil, "You are revising a plan"}} {
			m := &scriptedModel{replies: []string{`{"steps":[{"id":"e","description":"fetch","tool":"fetch","input":"{{a.result}}","depends_on":["a"]},{"id":"f","description":"answer","tool":"","depends_on":["e"]}]}`}}
			_, _, err := nodes.Revise(t.Context(), nodes.PartialReplan{Model: m, Prompt: tc.prompt}, req)
			require.NoError(t, err)
			require.Len(t, m.prompts, 1)
			require.Contains(t, m.prompts[0], tc.want)
		}
	})

	t.Run("responder", func(t *testing.T) {
		t.Parallel()
		p := plan.Plan{Goal: "g", Constraints: []string{"c1"}, Steps: []plan.Step{done(st("a", "search", `"q"`), "ra", "ea")}}
		for _, tc := range []struct {
			prompt *template.Template
			want   string
		}{{mine, "MINE goal=g constraints=[c1]"}, {nil, "Answer the user's request"}} {
			m := &scriptedModel{replies: []string{"the answer"}}
			resp, err := nodes.LLMResponder{Model: m, Prompt: tc.prompt}.Respond(t.Context(), nodes.RespondRequest{Plan: p})
			require.NoError(t, err)
			require.Equal(t, "the answer", resp.Text)
			require.Len(t, m.prompts, 1)
			require.Contains(t, m.prompts[0], tc.want)
		}
	})
}
