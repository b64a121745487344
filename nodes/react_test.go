package nodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// toolCallingModel is a fake llms.Model that answers with scripted choices
// (tool calls or text) and records the messages and tools it was given.
type toolCallingModel struct {
	mu      sync.Mutex
	replies []*llms.ContentChoice
	loop    *llms.ContentChoice // returned forever once replies run out
	calls   [][]llms.MessageContent
	tools   [][]llms.Tool
}

func (m *toolCallingModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	m.calls = append(m.calls, append([]llms.MessageContent(nil), msgs...))
	m.tools = append(m.tools, o.Tools)
	var c *llms.ContentChoice
	switch {
	case len(m.replies) > 0:
		c, m.replies = m.replies[0], m.replies[1:]
	case m.loop != nil:
		c = m.loop
	default:
		return nil, errors.New("tool-calling model: no more replies")
	}
	cp := *c
	cp.GenerationInfo = map[string]any{"PromptTokens": 10, "CompletionTokens": 5, "TotalTokens": 15}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&cp}}, nil
}

func (m *toolCallingModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func askTool(id, name, input string) *llms.ContentChoice {
	args, _ := json.Marshal(map[string]string{"input": input})
	return &llms.ContentChoice{ToolCalls: []llms.ToolCall{{ID: id, Type: "function",
		FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(args)}}}}
}

func TestReActExecutor(t *testing.T) {
	t.Parallel()
	step := plan.Step{ID: "research", Description: "Find out whether warehouse B can ship SKU-01"}
	tests := []struct {
		name     string
		model    *toolCallingModel
		maxTools int
		maxModel int
		byShare  bool // maxModel is the step's share of the agent's model-call budget
		status   plan.StepStatus
		output   string
		err      string
		audit    int
	}{{
		name: "tool call then answer",
		model: &toolCallingModel{replies: []*llms.ContentChoice{
			askTool("c1", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
			{Content: " B has 4 units. "},
		}},
		status: plan.StatusCompleted, output: "B has 4 units.", audit: 1,
	}, {
		name: "unknown tool is answered as an error and the model recovers",
		model: &toolCallingModel{replies: []*llms.ContentChoice{
			askTool("c1", "stock_chek", `{}`),
			askTool("c2", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
			{Content: "B has 4 units."},
		}},
		// The unknown tool was not called: not audited, not a tool call,
		// as in Executor.Run (TestAnUnknownToolIsNoToolCallInEitherExecutor).
		status: plan.StatusCompleted, output: "B has 4 units.", audit: 1,
	}, {
		name:     "per-step tool budget",
		model:    &toolCallingModel{loop: askTool("c", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`)},
		maxTools: 2,
		status:   plan.StatusFailed, err: `step "research": stopped by budget max_tool_calls_per_step: used 2 of 2`, audit: 2,
	}, {
		name:     "per-step model budget",
		model:    &toolCallingModel{loop: askTool("c", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`)},
		maxModel: 3,
		status:   plan.StatusFailed, err: `step "research": per-step model budget spent (3 calls) before a final answer`, audit: 3,
	}, {
		name:     "share of the agent's model-call budget",
		model:    &toolCallingModel{loop: askTool("c", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`)},
		maxModel: 2, byShare: true,
		status: plan.StatusFailed, err: `step "research": stopped by its share of budget max_model_calls: used 2 of 2`, audit: 2,
	}, {
		name:   "model error",
		model:  &toolCallingModel{},
		status: plan.StatusFailed, err: "tool-calling model: no more replies",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := delivery.New()
			r := &nodes.ReActExecutor{Model: tt.model, Tools: c.Tools(), MaxToolCalls: tt.maxTools, MaxModelCalls: tt.maxModel}
			r.SetByModelShare(tt.byShare)
			out, info := r.Run(t.Context(), step, nil)
			require.Equal(t, tt.status, out.Status, out.Err)
			require.Equal(t, tt.output, out.Output)
			if tt.err != "" {
				require.Contains(t, out.Err, tt.err)
			}
			require.Len(t, out.Audit, tt.audit)
			require.Equal(t, len(tt.model.calls), info.ModelCalls)
			require.Equal(t, 15*len(tt.model.calls)-15*boolInt(tt.name == "model error"), info.Tokens.Total)
			require.Len(t, tt.model.tools[0], 4, "the tools are offered with llms.WithTools")
			require.Equal(t, delivery.ToolOrderLookup, tt.model.tools[0][0].Function.Name)
			require.Zero(t, c.Calls(delivery.ToolChangeOrder))
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestReActExecutorSendsToolResultsBack(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("call-1", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
		{Content: "B has 4 units."},
	}}
	results := plan.Results{"order": {ID: "order", Description: "look up", Status: plan.StatusCompleted, Result: `{"sku":"SKU-01"}`}}
	step := plan.Step{ID: "research", Description: "Can B ship it?", DependsOn: []string{"order"}}
	out, _ := (&nodes.ReActExecutor{Model: m, Tools: c.Tools()}).Run(t.Context(), step, results)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.Equal(t, []string{`stock_check({"warehouse":"B","sku":"SKU-01"}) → {"warehouse":"B","sku":"SKU-01","available":4,"switch_allowed":true}`}, out.Evidence)

	first := m.calls[0]
	require.Equal(t, llms.ChatMessageTypeSystem, first[0].Role)
	require.Contains(t, first[1].Parts[0].(llms.TextContent).Text, `Result of order (look up): {"sku":"SKU-01"}`)
	second := m.calls[1]
	require.Len(t, second, 4)
	require.Equal(t, llms.ChatMessageTypeAI, second[2].Role)
	require.Equal(t, "call-1", second[2].Parts[0].(llms.ToolCall).ID)
	require.Equal(t, llms.ChatMessageTypeTool, second[3].Role)
	resp := second[3].Parts[0].(llms.ToolCallResponse)
	require.Equal(t, "call-1", resp.ToolCallID)
	require.Contains(t, resp.Content, `"available":4`)
}

func TestAgentRunsDescribedStepsWithReAct(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
		{Content: "Warehouse B has 4 units of SKU-01."},
	}}
	cfg := c.AgentConfig()
	cfg.Planner = plannerFunc(func(_ context.Context, req nodes.PlanRequest) (plan.Plan, nodes.PlanInfo, error) {
		return plan.Plan{Goal: req.Goal, Steps: []plan.Step{
			{ID: "research", Description: "Find out whether warehouse B has SKU-01"}, // no tool: ReAct
			{ID: "order", Description: "Look up the order", Tool: delivery.ToolOrderLookup, Input: json.RawMessage(`{"order_id":"O1001"}`)},
			{ID: "answer", Description: "Answer", DependsOn: []string{"research", "order"}}, // synthesis
		}}, nodes.PlanInfo{}, nil
	})
	cfg.Responder = nodes.TemplateResponder{}
	cfg.Budget = nodes.Budget{MaxToolCallsPerStep: 3}
	app := compileAgent(t, cfg, nil, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil), nodes.WithRoundByRound())
	out, err := app.Invoke(t.Context(), nodes.NewInput("Can B ship SKU-01?"))
	require.NoError(t, err)
	require.True(t, out.Response.Complete)
	require.Len(t, m.calls, 2, "only the described step used the model")
	require.Equal(t, nodes.Usage{Wall: out.Usage.Wall, ModelCalls: 2, ToolCalls: 2, Rounds: 2, PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30}, out.Usage)
	research := outcomeOf(t, out.PastSteps, "research")
	require.Equal(t, "Warehouse B has 4 units of SKU-01.", research.Output)
	require.Len(t, out.Audit.ForStep("research"), 1)
	require.Contains(t, out.Answer(), "Warehouse B has 4 units of SKU-01.")
	answer, _ := out.Plan.Step("answer")
	require.Contains(t, answer.Result, "research: Warehouse B has 4 units of SKU-01.")
}

// The inner ReAct executor returns the same result package as a tool step
// (seed 003 §7.2.2 and §7.4), "对剩余计划的影响" included: a route found blocked
// inside a ReAct step (the tool's JSON "blocked" or the Checker) reaches the
// replanner.
func TestReActStepReportsABlockedRoute(t *testing.T) {
	t.Parallel()
	stock := tool.Func{ToolName: "stock_check", ToolDescription: "stock",
		Fn: func(context.Context, string) (string, error) {
			return `{"blocked":true,"reason":"warehouse A has no stock until Saturday","impact":"evaluate other warehouses"}`, nil
		}}
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", "stock_check", `{"warehouse":"A","sku":"SKU-01"}`),
		{Content: "Warehouse A cannot ship before Saturday."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: []tools.Tool{stock}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "check_a", Description: "Can warehouse A deliver before Friday 18:00?"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.True(t, out.Blocked, "the step succeeded and showed the route is blocked")
	require.Contains(t, out.BlockReason, "no stock until Saturday")
	require.Equal(t, "evaluate other warehouses", out.Impact)
}

func TestReActStepIsJudgedByTheChecker(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolStockCheck, `{"warehouse":"A","sku":"SKU-01"}`),
		{Content: "Warehouse A is out of stock."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: c.Tools(), Checker: c.Checker()}
	out, _ := r.Run(t.Context(), plan.Step{ID: "check_a", Description: "Can warehouse A deliver in time?"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.True(t, out.Blocked)
	require.Contains(t, out.BlockReason, "restocks Saturday 10:00")
	require.Contains(t, out.Impact, "evaluate other warehouses")
	require.Equal(t, []string{"stock_check A: 0 available, restock Saturday 10:00, earliest arrival next Monday 18:00"}, out.Evidence)
	require.Equal(t, "Warehouse A is out of stock.", out.Conclusion, "the model's reply is still the step's conclusion")
}

func TestAnUnknownToolIsNoToolCallInEitherExecutor(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	step := plan.Step{ID: "research", Description: "Find out whether warehouse B can ship SKU-01"}
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", "stock_chek", `{}`),
		{Content: "no answer"},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: c.Tools(), MaxToolCalls: 1}
	react, _ := r.Run(t.Context(), step, nil)
	require.Equal(t, plan.StatusCompleted, react.Status, react.Err)
	require.Empty(t, react.Audit, "a call to an unknown tool is not a tool call in a ReAct step")
	last := m.calls[len(m.calls)-1]
	require.Contains(t, last[len(last)-1].Parts[0].(llms.ToolCallResponse).Content, `unknown tool "stock_chek"`, "the model is told")

	e := &nodes.Executor{Tools: c.Tools()}
	out := e.Run(t.Context(), plan.Step{ID: "research", Tool: "stock_chek"}, nil)
	require.Equal(t, plan.ErrKindUnknownTool, out.ErrKind)
	require.Empty(t, out.Audit, "nor in a tool step")
}

func TestAReActStepIsNotBlockedByACallItResolvedLater(t *testing.T) {
	t.Parallel()
	stock := tool.Func{ToolName: "stock_check", ToolDescription: "stock",
		Fn: func(_ context.Context, in string) (string, error) {
			if strings.Contains(in, `"A"`) {
				return `{"blocked":true,"reason":"warehouse A has no stock until Saturday"}`, nil
			}
			return `{"conclusion":"warehouse B has 4 in stock"}`, nil
		}}
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", "stock_check", `{"warehouse":"A","sku":"SKU-01"}`),
		askTool("c2", "stock_check", `{"warehouse":"B","sku":"SKU-01"}`),
		{Content: "Warehouse B can ship it."},
	}}
	r := &nodes.ReActExecutor{Model: m, Tools: []tools.Tool{stock}}
	out, _ := r.Run(t.Context(), plan.Step{ID: "find_stock", Description: "Find a warehouse with SKU-01 in stock"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status)
	require.False(t, out.Blocked, "the loop went on to a call of the same tool that was not blocked")
	require.Len(t, out.Evidence, 2, "both calls are evidence")
}

// The calls of one model reply run through chat/toolnode: concurrently
// (each waits until both have started), audited and answered in call
// order; counted in order against the per-step budget, the call that
// would exceed it is not made.
func TestReActStepRunsAReplysCallsTogetherInCallOrder(t *testing.T) {
	t.Parallel()
	var started sync.WaitGroup
	started.Add(2)
	var mu sync.Mutex
	var ran []string
	wait := tool.Func{ToolName: "wait", ToolDescription: "waits for its sibling",
		Fn: func(_ context.Context, in string) (string, error) {
			started.Done()
			started.Wait()
			mu.Lock()
			ran = append(ran, in)
			mu.Unlock()
			return "done " + in, nil
		}}
	both := &llms.ContentChoice{ToolCalls: append(askTool("c1", "wait", "first").ToolCalls, askTool("c2", "wait", "second").ToolCalls...)}
	m := &toolCallingModel{replies: []*llms.ContentChoice{both, {Content: "both done"}}}
	out, _ := (&nodes.ReActExecutor{Model: m, Tools: []tools.Tool{wait}}).Run(t.Context(), plan.Step{ID: "s", Description: "wait twice"}, nil)
	require.Equal(t, plan.StatusCompleted, out.Status, out.Err)
	require.Len(t, out.Audit, 2)
	for i, in := range []string{"first", "second"} {
		require.Equal(t, in, out.Audit[i].Input)
		require.Equal(t, i+1, out.Audit[i].Attempt)
		answer := m.calls[1][3+i].Parts[0].(llms.ToolCallResponse)
		require.Equal(t, []string{"c1", "c2"}[i], answer.ToolCallID)
		require.Equal(t, "done "+in, answer.Content)
	}
	require.ElementsMatch(t, []string{"first", "second"}, ran)

	plain := tool.Func{ToolName: "wait", ToolDescription: "", Fn: func(_ context.Context, in string) (string, error) { return in, nil }}
	m = &toolCallingModel{replies: []*llms.ContentChoice{both}}
	out, _ = (&nodes.ReActExecutor{Model: m, Tools: []tools.Tool{plain}, MaxToolCalls: 1}).Run(t.Context(), plan.Step{ID: "s"}, nil)
	require.Equal(t, plan.StatusFailed, out.Status)
	require.Contains(t, out.Err, `step "s": stopped by budget max_tool_calls_per_step: used 1 of 1`)
	require.Len(t, out.Audit, 1)
	require.Equal(t, "first", out.Audit[0].Input)
}
