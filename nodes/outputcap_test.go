package nodes_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// bigOutput is a 200 KB tool output: numbered rows, so a cut shows.
func bigOutput() string {
	var b strings.Builder
	for i := 0; b.Len() < 200*1024; i++ {
		fmt.Fprintf(&b, "row %06d: SKU-%04d in stock, 12 units, aisle 7\n", i, i%9999)
	}
	return b.String()[:200*1024]
}

func TestCapOutput(t *testing.T) {
	t.Parallel()
	require.Equal(t, "short", nodes.CapOutput("short", 0))
	long := strings.Repeat("é", 10) // two bytes each
	got := nodes.CapOutput(long, 5)
	require.True(t, strings.HasPrefix(got, "éé\n[… output truncated for this prompt: 4 of 20 bytes shown"), got)
	require.Contains(t, got, "the whole output is in the run's state")
	big := bigOutput()
	capped := nodes.CapOutput(big, 0)
	require.True(t, strings.HasPrefix(capped, big[:nodes.DefaultOutputCap]+"\n[… output truncated for this prompt: 8000 of 204800 bytes shown;"), "the default cap")
	require.Less(t, len(capped), nodes.DefaultOutputCap+200)
}

// A tool returning 200 KB, called by a plan step and by a ReAct step, over
// langchaingo's OpenAI client: no request the model receives holds the
// output whole — the ReAct step's tool answer and the responder's results
// are cut with the marker — and the run's state keeps it whole.
func TestA200KBToolOutputNeverReachesAPromptWhole(t *testing.T) {
	t.Parallel()
	big := bigOutput()
	ts := []tools.Tool{tool.Func{ToolName: "dump", ToolDescription: "dumps the stock table", Fn: func(context.Context, string) (string, error) { return big, nil }}}
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "You are a planner", Content: `{"steps":[
			{"id":"dump","description":"Dump the stock table","tool":"dump","input":"all","depends_on":[]},
			{"id":"look","description":"Look for SKU-0042 in the stock table","tool":"","input":{},"depends_on":[]},
			{"id":"answer","description":"Answer","tool":"","input":{},"depends_on":["dump","look"]}]}`},
		fakechat.Turn{Marker: "You carry out one step", Once: true, ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "dump", Arguments: `{"input":"all"}`}}},
		fakechat.Turn{Marker: "You carry out one step", Content: "SKU-0042: 12 units, aisle 7"},
		fakechat.Turn{Marker: "Answer the user's request", Content: "SKU-0042 has 12 units in aisle 7."},
	)
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"))
	require.NoError(t, err)
	app := compileAgent(t, nodes.AgentConfig{Model: llm, Tools: ts}, nil,
		nodes.WithReAct(&nodes.ReActExecutor{Model: llm}, nil))
	out, err := app.Invoke(t.Context(), nodes.NewInput("how many units of SKU-0042 are in stock?"))
	require.NoError(t, err)
	require.Equal(t, "SKU-0042 has 12 units in aisle 7.", out.Answer())

	reqs := srv.Requests()
	require.Len(t, reqs, 4, "planner, the ReAct step's two calls, responder")
	for i, body := range reqs {
		require.Less(t, len(body), 3*nodes.DefaultOutputCap, "request %d is small", i)
		require.NotContains(t, body, "row 004000", "request %d holds no row past the cap", i)
	}
	require.Contains(t, reqs[2], "output truncated for this prompt", "the ReAct step's tool answer is cut")
	require.Contains(t, reqs[3], "output truncated for this prompt", "the responder's results are cut")
	require.Contains(t, reqs[3], "row 000000")

	dump, _ := out.Plan.Step("dump")
	require.Equal(t, big, dump.Result, "the state keeps the output whole")
	require.Len(t, out.Audit, 2)
	for _, rec := range out.Audit {
		require.Equal(t, big, rec.Output, "the audit keeps every output whole")
	}
}

func TestWithOutputCapSetsTheCapOfThePrompts(t *testing.T) {
	t.Parallel()
	big := bigOutput()
	ts := []tools.Tool{tool.Func{ToolName: "dump", Fn: func(context.Context, string) (string, error) { return big, nil }}}
	srv := fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Reply: `{"steps":[{"id":"dump","description":"Dump","tool":"dump","input":"all","depends_on":[]},
			{"id":"answer","description":"Answer","tool":"","input":{},"depends_on":["dump"]}]}`},
		fakechat.Rule{Marker: "Answer the user's request", Reply: "done"},
	)
	app := compileAgent(t, nodes.AgentConfig{Model: openaiModel(t, srv), Tools: ts}, nil, nodes.WithOutputCap(1000))
	_, err := app.Invoke(t.Context(), nodes.NewInput("dump it"))
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Less(t, len(reqs[1]), 4000)
	require.Contains(t, reqs[1], "output truncated for this prompt: 1000 of 204800 bytes shown")
}

// The partial replanner's prompt shows a completed step's long result cut
// at its OutputCap; the kept step keeps it whole.
func TestPartialReplanShowsALongResultCut(t *testing.T) {
	t.Parallel()
	big := bigOutput()
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		done(st("a", "search", `"q"`), big, "ea"),
		{ID: "b", Description: "blocked", Tool: "search", DependsOn: []string{"a"}, Status: plan.StatusCompleted, Result: "rb"},
		st("c", "fetch", "", "b"),
	}}
	req := nodes.ReplanRequest{Plan: p, Trigger: nodes.Trigger{Kind: nodes.TriggerBlocked, StepID: "b", BlockReason: "route blocked"}, Tools: testTools("search", "fetch")}
	m := &scriptedModel{replies: []string{`{"steps":[{"id":"e","description":"fetch","tool":"fetch","input":"x","depends_on":[]},{"id":"f","description":"answer","tool":"","depends_on":["e"]}]}`}}
	np, _, err := nodes.Revise(t.Context(), nodes.PartialReplan{Model: m, OutputCap: 500}, req)
	require.NoError(t, err)
	require.Less(t, len(m.prompts[0]), 3000)
	require.Contains(t, m.prompts[0], "output truncated for this prompt: 500 of 204800 bytes shown")
	require.Equal(t, big, np.Steps[0].Result, "the kept step keeps its result whole")
}

// The responder's prompt shows each tool output once: a synthesis step's
// evidence that repeats its dependencies' results is left out.
func TestTheResponderSeesEachOutputOnce(t *testing.T) {
	t.Parallel()
	out := `{"rate":0.92,"fact":"1 USD = 0.92 EUR"}`
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		done(st("fx", "fx", `{}`), out, `fx({}) → `+out),
		{ID: "answer", Description: "Answer", DependsOn: []string{"fx"}, Status: plan.StatusCompleted, Result: "fx: " + out, Evidence: []string{`fx({}) → ` + out}},
	}}
	m := &scriptedModel{replies: []string{"0.92"}}
	_, err := nodes.LLMResponder{Model: m}.Respond(t.Context(), nodes.RespondRequest{Plan: p})
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(m.prompts[0], out), m.prompts[0])
}

// A tool's long error is capped too: in a replan trigger's summary and in
// the responder's prompt (the failed step's error, the missing steps).
func TestALongToolErrorIsCappedInPrompts(t *testing.T) {
	t.Parallel()
	big := bigOutput()
	sum := nodes.Trigger{Kind: nodes.TriggerFailed, StepID: "a", ErrKind: plan.ErrKindOther, Error: big}.Summary()
	require.Less(t, len(sum), nodes.DefaultOutputCap+200)
	require.Contains(t, sum, "output truncated for this prompt")

	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		{ID: "a", Description: "fetch", Tool: "fetch", Status: plan.StatusSkipped, Error: big},
		{ID: "answer", Description: "Answer", DependsOn: []string{"a"}, Status: plan.StatusCompleted},
	}}
	m := &scriptedModel{replies: []string{"a failed"}}
	resp, err := nodes.LLMResponder{Model: m}.Respond(t.Context(), nodes.RespondRequest{Plan: p})
	require.NoError(t, err)
	require.Less(t, len(m.prompts[0]), 3*nodes.DefaultOutputCap)
	require.Contains(t, resp.Missing[0], big, "the response keeps the error whole")
}
