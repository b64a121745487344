package nodes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

func respondPlan() plan.Plan {
	return plan.Plan{Goal: "find go", Constraints: []string{"be quick"}, Steps: []plan.Step{
		done(st("a", "search", `"go"`), `{"hits":3}`, "search(go) → 3 hits"),
		{ID: "b", Description: "fetch the first hit", Tool: "fetch", DependsOn: []string{"a"}, Status: plan.StatusFailed, Error: "timeout"},
		st("c", "", "", "b"),
	}}
}

func TestTemplateResponder(t *testing.T) {
	t.Parallel()
	p := respondPlan()
	stop := &nodes.StopReason{Budget: nodes.BudgetToolCalls, Limit: "2", Used: "2"}
	resp, err := nodes.TemplateResponder{}.Respond(t.Context(), nodes.RespondRequest{Plan: p, Outcomes: []nodes.StepOutcome{{StepID: "a", Conclusion: "3 hits found"}}, Stop: stop})
	require.NoError(t, err)
	require.False(t, resp.Complete)
	require.Equal(t, "Goal: find go\nDone:\n- do a: 3 hits found\n  evidence: search(go) → 3 hits\n"+
		"Stopped early: nodes: stopped by budget max_tool_calls: used 2 of 2\nNot done:\n"+
		"- b: fetch the first hit (failed): timeout\n- c: do c (pending)", resp.Text)
	require.Equal(t, []string{"b: fetch the first hit (failed): timeout", "c: do c (pending)"}, resp.Missing)

	p.Steps = p.Steps[:1]
	resp, err = nodes.TemplateResponder{}.Respond(t.Context(), nodes.RespondRequest{Plan: p})
	require.NoError(t, err)
	require.True(t, resp.Complete)
	require.NotContains(t, resp.Text, "Stopped early")
}

func TestLLMResponder(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{replies: []string{"  Partial answer.  "}}
	resp, err := nodes.LLMResponder{Model: m}.Respond(t.Context(), nodes.RespondRequest{Plan: respondPlan(), Blocked: "no replanner could fix b"})
	require.NoError(t, err)
	require.Equal(t, "Partial answer.", resp.Text)
	require.False(t, resp.Complete)
	require.Equal(t, 1, resp.ModelCalls)
	require.Equal(t, 120, resp.Tokens.Total)
	prompt := m.prompts[0]
	for _, want := range []string{
		"Request: find go", "- be quick", "- a (completed) do a\n  result: {\"hits\":3}\n  evidence: search(go) → 3 hits",
		"  error: timeout", "The work stopped early: no replanner could fix b", "- c: do c (pending)", "Say what was done, what is missing and why.",
	} {
		require.Contains(t, prompt, want)
	}
}

func TestRespondListsSkippedStepsAFormatLeftOut(t *testing.T) {
	t.Parallel()
	ts := []tools.Tool{
		funcTool("ok", func(context.Context, string) (string, error) { return `{"v":1}`, nil }),
		funcTool("down", func(context.Context, string) (string, error) { return "", errors.New("service unavailable") }),
	}
	planner := stepsPlanner(st("a", "down", `{}`), st("c", "ok", `{}`), st("answer", "", "", "a", "c"))
	format := nodes.TemplateResponder{Format: func(nodes.RespondRequest) (string, error) { return "All good.", nil }}
	app := compileAgent(t, nodes.AgentConfig{Tools: ts, Planner: planner, Responder: format, FailurePolicy: nodes.FailurePolicy{Action: nodes.OnFailureSkip}}, nil)
	out, err := app.Invoke(t.Context(), nodes.NewInput("g"))
	require.NoError(t, err)
	require.False(t, out.Response.Complete)
	require.Contains(t, out.Answer(), "All good.\nMissing (failed, then skipped):\n- a: ")
	require.Contains(t, out.Answer(), "service unavailable")
}

// A plan whose final step writes the answer ({"answer": "…"}) is answered
// with it, without the responder's model call, when every step completed;
// when a reference of the answer cannot be resolved, or a step failed and
// was skipped, the responder writes the answer.
func TestThePlansFinalStepAnswersWithoutAModelCall(t *testing.T) {
	t.Parallel()
	lookup := tool.Func{ToolName: "lookup", ToolDescription: "looks up", Fn: func(_ context.Context, in string) (string, error) {
		if in == "broken" {
			return "", errors.New("service down")
		}
		return `{"fact":"` + in + ` is 42"}`, nil
	}}
	mkPlan := func(answer, input string) string {
		return `{"steps":[{"id":"a","description":"Look a up","tool":"lookup","input":"` + input + `","depends_on":[]},
			{"id":"answer","description":"Answer","tool":"","input":{"answer":"` + answer + `"},"depends_on":["a"]}]}`
	}
	tests := []struct {
		name, plan string
		policy     nodes.FailurePolicy
		calls      int
		answer     string
		complete   bool
	}{
		{"the answer resolves", mkPlan("So: {{a.result.fact}}.", "x"), nodes.FailurePolicy{}, 1, "So: x is 42.", true},
		{"a reference does not resolve", mkPlan("So: {{a.result.nope}}.", "x"), nodes.FailurePolicy{}, 2, "from the model", true},
		{"a step was skipped", mkPlan("So: {{a.result.fact}}.", "broken"), nodes.FailurePolicy{Action: nodes.OnFailureSkip}, 2, "from the model", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakechat.New(t,
				fakechat.Rule{Marker: "You are a planner", Reply: tt.plan},
				fakechat.Rule{Marker: "Answer the user's request", Reply: "from the model"},
			)
			app := compileAgent(t, nodes.AgentConfig{Model: openaiModel(t, srv), Tools: []tools.Tool{lookup}, FailurePolicy: tt.policy}, nil)
			out, err := app.Invoke(t.Context(), nodes.NewInput("what is x?"))
			require.NoError(t, err)
			require.Len(t, srv.Requests(), tt.calls)
			require.Equal(t, tt.calls, out.Usage.ModelCalls)
			require.Contains(t, out.Answer(), tt.answer)
			require.Equal(t, tt.complete, out.Response.Complete)
		})
	}
}
