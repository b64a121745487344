package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

const goodPlan = "Here you go:\n```json\n" + `{"goal":"x","steps":[
 {"id":"s1","description":"search it","tool":"search","input":{"q":"go"}},
 {"id":"s2","description":"answer","tool":"","depends_on":["s1"]}]}` + "\n```"

func TestLLMPlannerReasksWithProblems(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{replies: []string{
		"I think you should search the web.",                                   // not JSON
		`{"steps":[{"id":"s1","description":"x","tool":"serch","input":{}},]}`, // trailing comma
		`{"steps":[{"id":"s1","description":"x","tool":"serch","input":{}}]}`,  // unknown tool
		goodPlan,
	}}
	pl := &nodes.LLMPlanner{Model: m, Tools: testTools("search"), MaxAttempts: 4}
	p, info, err := pl.Plan(t.Context(), nodes.PlanRequest{Goal: "find go", Constraints: []string{"be quick"}})
	require.NoError(t, err)
	require.Equal(t, "find go", p.Goal)
	require.Equal(t, []string{"be quick"}, p.Constraints)
	require.Equal(t, []string{"s1", "s2"}, stepIDs(p))
	require.Equal(t, plan.StatusPending, p.Steps[0].Status)
	require.Equal(t, 4, info.Attempts)
	require.Equal(t, 4, info.ModelCalls)
	require.Equal(t, nodes.Tokens{Prompt: 400, Completion: 80, Total: 480}, info.Tokens)
	require.Len(t, info.Rejected, 3)
	require.InDelta(t, 1.0, info.Score.Overall, 1e-9)

	require.Contains(t, m.prompts[0], "- search: the search tool")
	require.Contains(t, m.prompts[0], "- be quick")
	require.Contains(t, m.prompts[0], `"required":["steps"]`, "the plan schema (compact)")
	require.NotContains(t, m.prompts[0], "previous plan was rejected")
	require.Contains(t, m.prompts[1], `no JSON object with "steps"`)
	require.Contains(t, m.prompts[1], "I think you should search the web.")
	require.Contains(t, m.prompts[2], "line 1, column 66 (offset 65): trailing comma before ']'")
	require.Contains(t, m.prompts[3], `step "s1": unknown tool "serch" (available: search); did you mean "search"?`)
	require.Contains(t, m.prompts[3], "no final step answers the goal")
}

func TestLLMPlannerGivesUpWithClearError(t *testing.T) {
	t.Parallel()
	bad := `{"steps":[{"id":"a","description":"x","tool":"nope","depends_on":["a"]}]}`
	m := &scriptedModel{replies: []string{bad, bad, bad, goodPlan}}
	_, info, err := (&nodes.LLMPlanner{Model: m, Tools: testTools("search")}).Plan(t.Context(), nodes.PlanRequest{Goal: "g"})
	require.ErrorIs(t, err, nodes.ErrPlanRejected)
	var re *nodes.RejectedError
	require.True(t, errors.As(err, &re))
	require.Equal(t, 3, re.Attempts)
	require.ErrorContains(t, err, `nodes: plan rejected after 3 attempts: step "a": unknown tool "nope" (available: search); step "a": depends on itself`)
	require.Equal(t, 3, m.calls(), "default MaxAttempts is 3")
	require.Equal(t, 3, info.ModelCalls)
}

func TestLLMPlannerThreshold(t *testing.T) {
	t.Parallel()
	// Valid, but with no answer step: completeness 0.6, overall 0.87.
	noAnswer := `{"steps":[{"id":"a","description":"look","tool":"search"},{"id":"b","description":"look more","tool":"search","depends_on":["a"]}]}`
	m := &scriptedModel{replies: []string{noAnswer, goodPlan}}
	p, info, err := (&nodes.LLMPlanner{Model: m, Tools: testTools("search"), Threshold: 0.9}).Plan(t.Context(), nodes.PlanRequest{Goal: "g"})
	require.NoError(t, err)
	require.Equal(t, []string{"s1", "s2"}, stepIDs(p))
	require.Equal(t, 2, info.ModelCalls)
	require.Contains(t, m.prompts[1], "plan scored 0.87, below the threshold 0.90")

	m = &scriptedModel{replies: []string{noAnswer}}
	_, _, err = (&nodes.LLMPlanner{Model: m, Tools: testTools("search"), Threshold: 0.8}).Plan(t.Context(), nodes.PlanRequest{Goal: "g"})
	require.NoError(t, err, "0.87 passes a 0.8 threshold")
}

func TestLLMPlannerModelErrorIsReturned(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	_, info, err := (&nodes.LLMPlanner{Model: &scriptedModel{err: boom}}).Plan(t.Context(), nodes.PlanRequest{Goal: "g"})
	require.ErrorIs(t, err, boom)
	require.Equal(t, 1, info.ModelCalls)
	_, _, err = (&nodes.LLMPlanner{}).Plan(t.Context(), nodes.PlanRequest{Goal: "g"})
	require.ErrorContains(t, err, "no model configured")
}

func TestTemplateAndAdaptivePlanners(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	tp := &nodes.TemplatePlanner{Tools: ts, Templates: []nodes.PlanTemplate{
		{Name: "kw", Keywords: []string{"weather", "tomorrow"}, Build: func(req nodes.PlanRequest) (plan.Plan, error) {
			return plan.Plan{Steps: []plan.Step{{ID: "w", Description: "answer", Tool: ""}}}, nil
		}},
		c.Template(),
	}}
	p, info, err := tp.Plan(t.Context(), c.Request())
	require.NoError(t, err)
	require.Equal(t, "template:delivery-check", info.Source)
	require.Zero(t, info.ModelCalls)
	require.Equal(t, c.Goal(), p.Goal)
	require.Equal(t, c.Constraints(), p.Constraints)

	_, info, err = tp.Plan(t.Context(), nodes.PlanRequest{Goal: "Weather for TOMORROW?"})
	require.NoError(t, err)
	require.Equal(t, "template:kw", info.Source)

	_, _, err = tp.Plan(t.Context(), nodes.PlanRequest{Goal: "weather today"})
	require.ErrorIs(t, err, nodes.ErrNoTemplate)

	// A template that does not validate is an error naming it.
	broken := &nodes.TemplatePlanner{Tools: ts, Templates: []nodes.PlanTemplate{{Name: "broken", Keywords: []string{"x"}, Build: func(nodes.PlanRequest) (plan.Plan, error) {
		return plan.Plan{Steps: []plan.Step{{ID: "a", Tool: "nope"}}}, nil
	}}}}
	_, _, err = broken.Plan(t.Context(), nodes.PlanRequest{Goal: "x"})
	require.ErrorContains(t, err, `template "broken"`)
	require.ErrorIs(t, err, plan.ErrInvalid)

	m := &scriptedModel{replies: []string{goodPlan}}
	ap := &nodes.AdaptivePlanner{Templates: tp, Model: &nodes.LLMPlanner{Model: m, Tools: testTools("search")}}
	_, info, err = ap.Plan(t.Context(), c.Request())
	require.NoError(t, err)
	require.Zero(t, m.calls(), "a matching template costs no model call")
	require.Equal(t, "template:delivery-check", info.Source)
	p, info, err = ap.Plan(t.Context(), nodes.PlanRequest{Goal: "find go"})
	require.NoError(t, err)
	require.Equal(t, "model", info.Source)
	require.Equal(t, 1, m.calls())
	require.Len(t, p.Steps, 2)

	_, _, err = (&nodes.AdaptivePlanner{Templates: tp}).Plan(t.Context(), nodes.PlanRequest{Goal: "nothing"})
	require.ErrorIs(t, err, nodes.ErrNoTemplate)
}

func TestLLMPlannerThroughOpenAIClient(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewWith(t, fakechat.Options{PromptTokens: 50, CompletionTokens: 10},
		fakechat.Rule{Reply: "```json\n{\"steps\": [{\"id\": \"s1\",}]}\n```", Once: true},
		fakechat.Rule{Reply: goodPlan, Once: true})
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"))
	require.NoError(t, err)

	p, info, err := (&nodes.LLMPlanner{Model: llm, Tools: testTools("search")}).Plan(t.Context(), nodes.PlanRequest{Goal: "find go"})
	require.NoError(t, err)
	require.Equal(t, []string{"s1", "s2"}, stepIDs(p))
	require.Equal(t, `{"q":"go"}`, string(p.Steps[0].Input))
	require.Equal(t, 2, info.ModelCalls)
	require.Equal(t, nodes.Tokens{Prompt: 100, Completion: 20, Total: 120}, info.Tokens)

	bodies := srv.Requests()
	require.Len(t, bodies, 2)
	requests := make([]map[string]any, len(bodies))
	for i, b := range bodies {
		require.NoError(t, json.Unmarshal([]byte(b), &requests[i]))
	}
	require.Equal(t, "test", requests[0]["model"])
	msgs := requests[1]["messages"].([]any)
	content := msgs[0].(map[string]any)["content"]
	text, _ := json.Marshal(content)
	require.Contains(t, string(text), "trailing comma before '}'")
}

// The agent validates the first plan before anything runs, whatever Planner
// made it: a plan with a duplicate id is refused and no tool is called.
func TestAgentValidatesThePlanBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	ts := []tools.Tool{tool.Func{ToolName: "search", ToolDescription: "search", Fn: func(context.Context, string) (string, error) {
		calls.Add(1)
		return "hits", nil
	}}}
	cfg := nodes.AgentConfig{Tools: ts, Planner: stepsPlanner(
		st("a", "search", `"x"`),
		st("a", "search", `"y"`),
		st("answer", "", "", "a"),
	)}
	app := compileAgent(t, cfg, nil)
	_, err := app.Invoke(t.Context(), nodes.NewInput("search"))
	require.ErrorIs(t, err, plan.ErrInvalid)
	require.Zero(t, calls.Load(), "nothing runs before the plan is validated")
}

// Seed 001 PlanQualityEvaluator + "_plan_with_feedback": a valid plan that
// scores under the threshold is asked for again, with the problems listed,
// and the better plan is used. (Coverage: the low-score path, not a parse
// or validation failure.)
func TestLowScoringPlanIsReaskedWithItsProblems(t *testing.T) {
	t.Parallel()
	ts := testTools("search")
	// Valid, but no description anywhere and no final answer step:
	// completeness 0.4, executability 1, dependencies 1 → 0.8; the threshold is 0.9.
	weak := `{"steps":[{"id":"a","tool":"search","input":"go","depends_on":[]}]}`
	good := "```json\n" + `{"steps":[{"id":"a","description":"search for go","tool":"search","input":"go","depends_on":[]},` +
		`{"id":"b","description":"answer from the hits","tool":"","depends_on":["a"]}]}` + "\n```"
	m := &scriptedModel{replies: []string{weak, good}}
	p, info, err := (&nodes.LLMPlanner{Model: m, Tools: ts, Threshold: 0.9}).Plan(t.Context(), nodes.PlanRequest{Goal: "find go", Constraints: []string{"c1"}})
	require.NoError(t, err)
	require.Equal(t, 2, info.Attempts)
	require.Equal(t, 2, info.ModelCalls)
	require.Equal(t, []string{"a", "b"}, stepIDs(p))
	require.Equal(t, []string{"c1"}, p.Constraints)
	require.Len(t, info.Rejected, 1)
	require.Contains(t, m.prompts[0], "- search: the search tool", "the prompt lists the available tools")
	require.Contains(t, m.prompts[0], "- c1", "and the constraints")
	require.Contains(t, m.prompts[1], "Your previous plan was rejected")
	require.Contains(t, m.prompts[1], "no final step answers the goal")
	require.Contains(t, m.prompts[1], "below the threshold 0.90")
}

// Seed 001 AdaptivePlanner: "先用模板匹配（零成本），匹配不到再调 LLM". The
// delivery goal matches the template and the model is not called; another
// goal goes to the model.
func TestAdaptivePlannerTriesTemplatesFirst(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	ts := c.Tools()
	m := &scriptedModel{replies: []string{deliveryPlanReply}}
	ap := &nodes.AdaptivePlanner{Templates: &nodes.TemplatePlanner{Templates: []nodes.PlanTemplate{c.Template()}, Tools: ts}, Model: &nodes.LLMPlanner{Model: m, Tools: ts}}

	p, info, err := ap.Plan(t.Context(), c.Request())
	require.NoError(t, err)
	require.Equal(t, "template:delivery-check", info.Source)
	require.Zero(t, info.ModelCalls)
	require.Zero(t, m.calls())
	require.Equal(t, c.Constraints(), p.Constraints)

	p, info, err = ap.Plan(t.Context(), nodes.PlanRequest{Goal: "Where is my parcel for order O2002?"})
	require.NoError(t, err)
	require.Equal(t, "model", info.Source)
	require.Equal(t, 1, m.calls())
	require.Equal(t, "Where is my parcel for order O2002?", p.Goal)
}

// nilModel answers (nil, nil): no error, no response.
type nilModel struct{}

func (nilModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return nil, nil
}

func (nilModel) Call(context.Context, string, ...llms.CallOption) (string, error) { return "", nil }

// A model (or client wrapper) that returns a nil response without an error
// fails the planner and the responder with a clear error, as it fails a
// ReAct step, instead of a panic.
func TestPlannerNilResponseIsAnError(t *testing.T) {
	t.Parallel()
	pl := &nodes.LLMPlanner{Model: nilModel{}}
	require.NotPanics(t, func() {
		_, _, err := pl.Plan(t.Context(), nodes.PlanRequest{Goal: "anything"})
		require.Error(t, err)
	})
	require.NotPanics(t, func() {
		_, err := nodes.LLMResponder{Model: nilModel{}}.Respond(t.Context(), nodes.RespondRequest{Plan: plan.Plan{Goal: "g"}})
		require.Error(t, err)
	})
}

func TestAPlannerNodeErrorSaysEachPrefixOnce(t *testing.T) {
	t.Parallel()
	m := &scriptedModel{replies: []string{"no plan", "still none", "none"}}
	app := compileAgent(t, nodes.AgentConfig{Model: m, Tools: testTools("search")}, nil)
	_, err := app.Invoke(t.Context(), nodes.NewInput("find it"))
	require.ErrorIs(t, err, nodes.ErrPlanRejected)
	require.ErrorContains(t, err, "nodes: planner: plan rejected after 3 attempts")
	require.Equal(t, 1, strings.Count(err.Error(), "nodes: "), err.Error())
}
