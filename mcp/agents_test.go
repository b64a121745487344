package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/mcp"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// model is a scripted llms.Model: it answers with its replies in order
// and records each call's prompt text and offered tools.
type model struct {
	mu      sync.Mutex
	replies []*llms.ContentChoice
	prompts []string
	offered [][]llms.Tool
}

func (m *model) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var b strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if tp, ok := p.(llms.TextContent); ok {
				b.WriteString(tp.Text)
			}
		}
	}
	m.prompts = append(m.prompts, b.String())
	m.offered = append(m.offered, o.Tools)
	if len(m.replies) == 0 {
		return nil, errors.New("scripted model: no more replies")
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{r}}, nil
}

func (m *model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func text(s string) *llms.ContentChoice { return &llms.ContentChoice{Content: s} }

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// calcServer is a Go MCP server of the SDK's, reached in memory: add
// (read-only), fail (answers isError) and wipe (destructive).
func calcServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "adds two numbers", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: jsonNumber(in.A + in.B)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "always fails"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("the disk is on fire")
		})
	no := false
	sdk.AddTool(s, &sdk.Tool{Name: "wipe", Description: "wipes the scratch area", Annotations: &sdk.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wiped"}}}, nil, nil
		})
	return s
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// inMemory reaches s through the SDK's in-memory transports, a new
// server session for each connection.
func inMemory(t testing.TB, s *sdk.Server) mcp.Server {
	return mcp.Server{Name: "calc", Transport: func() sdk.Transport {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = ss.Close() })
		return ct
	}}
}

func TestChatAgentCallsMCPToolsAndReadsTheirErrors(t *testing.T) {
	c, err := mcp.Connect(t.Context(), inMemory(t, calcServer()))
	require.NoError(t, err)
	defer c.Close()
	m := &model{replies: []*llms.ContentChoice{
		{ToolCalls: []llms.ToolCall{
			call("c1", "add", `{"a":2,"b":40}`),
			call("c2", "fail", `{}`),
			call("c3", "add", `{"a":"two","b":40}`),
		}},
		text("2 + 40 = 42"),
	}}
	a := agent.New[agent.NoResponse](m, c.Tools())
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	out, err := app.Invoke(t.Context(), a.Input(chat.Human("what is 2 + 40?")), graph.WithThread("t1"))
	require.NoError(t, err, "a failing MCP tool is a tool message, not a failed run")

	answers := map[string]string{}
	for _, msg := range out.Messages {
		if r, ok := msg.ToolResponse(); ok {
			answers[r.ToolCallID] = r.Content
		}
	}
	assert.Equal(t, "42", answers["c1"])
	assert.Contains(t, answers["c2"], `mcp: server "calc": tool "fail" failed: the disk is on fire`)
	assert.Contains(t, answers["c3"], `bad input: tool "add": field "a": want number`)
	last, _ := chat.Last(out.Messages)
	assert.Equal(t, "2 + 40 = 42", last.Text())

	// The model was offered the tools with their MCP schemas.
	require.NotEmpty(t, m.offered)
	var add *llms.FunctionDefinition
	for _, d := range m.offered[0] {
		if d.Function.Name == "add" {
			add = d.Function
		}
	}
	require.NotNil(t, add)
	assert.Equal(t, "adds two numbers", add.Description)
	params, err := json.Marshal(add.Parameters)
	require.NoError(t, err)
	assert.Contains(t, string(params), `"the first number"`)
	assert.Contains(t, string(params), `"required":["a","b"]`)
}

func TestAnnotationsSayWhichToolsHaveSideEffects(t *testing.T) {
	c, err := mcp.Connect(t.Context(), inMemory(t, calcServer()))
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()
	for _, tc := range []struct {
		tool string
		want mcp.Annotations
	}{
		{"add", mcp.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}},
		{"fail", mcp.Annotations{Destructive: true, OpenWorld: true}}, // no hints: the protocol's defaults
		{"wipe", mcp.Annotations{Idempotent: true, OpenWorld: true}},
	} {
		tl := toolNamed(t, ts, tc.tool)
		assert.Equal(t, tc.want, tl.Annotations(), tc.tool)
		assert.Equal(t, !tc.want.ReadOnly, tl.SideEffects(), tc.tool)
	}
	// plan.ReadOnlyGuard refuses the tools that are not read-only.
	p := plan.Plan{Goal: "g", Steps: []plan.Step{{ID: "s1", Tool: "add", Input: json.RawMessage(`{"a":1,"b":2}`)}, {ID: "s2", Tool: "wipe"}}}
	probs := plan.ReadOnlyGuard(ts)(p)
	require.Len(t, probs, 1)
	assert.Equal(t, "s2", probs[0].StepID)
}

func TestToolListFollowsTheServer(t *testing.T) {
	s := calcServer()
	changed := make(chan []tools.Tool, 4)
	c, err := mcp.Connect(t.Context(), inMemory(t, s), mcp.WithToolsChanged(func(ts []tools.Tool) { changed <- ts }))
	require.NoError(t, err)
	defer c.Close()
	add := toolNamed(t, c.Tools(), "add")

	sdk.AddTool(s, &sdk.Tool{Name: "mul", Description: "multiplies two numbers"},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: jsonNumber(in.A * in.B)}}}, nil, nil
		})
	ts := <-changed
	out, err := toolNamed(t, ts, "mul").Call(t.Context(), `{"a":6,"b":7}`)
	require.NoError(t, err)
	assert.Equal(t, "42", out)

	s.RemoveTools("add")
	ts = <-changed
	for _, tl := range ts {
		assert.NotEqual(t, "add", tl.Name())
	}
	_, err = add.Call(t.Context(), `{"a":1,"b":2}`)
	assert.EqualError(t, err, `mcp: server "calc" no longer offers tool "add"`)
}

func TestInputGuardChecksPlannedStepsAgainstSchemas(t *testing.T) {
	c, err := mcp.Connect(t.Context(), inMemory(t, calcServer()))
	require.NoError(t, err)
	defer c.Close()
	guard := mcp.InputGuard(c.Tools())
	p := plan.Plan{Goal: "g", Steps: []plan.Step{
		{ID: "ok", Tool: "add", Input: json.RawMessage(`{"a":1,"b":2}`)},
		{ID: "missing", Tool: "add", Input: json.RawMessage(`{"a":1}`)},
		{ID: "ref", Tool: "add", Input: json.RawMessage(`{"a":"{{ok.result}}","b":2}`), DependsOn: []string{"ok"}},
		{ID: "done", Tool: "add", Input: json.RawMessage(`{}`), Status: plan.StatusCompleted},
		{ID: "text", Tool: "add", Input: json.RawMessage(`"1 and 2"`)},
	}}
	probs := guard(p)
	require.Len(t, probs, 2)
	assert.Equal(t, plan.Problem{StepID: "missing", Kind: plan.ProblemInvalidInput, Message: `bad input: tool "add": missing required field "b"`}, probs[0])
	assert.Equal(t, "text", probs[1].StepID)
	assert.Contains(t, probs[1].Message, "want a JSON object")
}

func TestPlanAndExecuteAgentPlansWithEverythingsTools(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t))
	require.NoError(t, err)
	defer c.Close()
	ts := c.Tools()
	bad := `{"goal":"add 2 and 40, then echo it","steps":[{"id":"sum","description":"add","tool":"get-sum","input":{"a":"two","b":40}}]}`
	good := `{"goal":"add 2 and 40, then echo it","steps":[` +
		`{"id":"sum","description":"add","tool":"get-sum","input":{"a":2,"b":40}},` +
		`{"id":"say","description":"echo the sum","tool":"echo","input":{"message":"{{sum.result}}"},"depends_on":["sum"]}]}`
	m := &model{replies: []*llms.ContentChoice{text(bad), text(good)}}
	ag, err := nodes.NewAgent(nodes.AgentConfig{
		Model: m, Tools: ts, Guards: []plan.Guard{mcp.InputGuard(ts)},
		Responder: nodes.TemplateResponder{},
	})
	require.NoError(t, err)
	app, err := ag.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	out, err := app.Invoke(t.Context(), nodes.NewInput("add 2 and 40, then echo it"), graph.WithThread("p1"))
	require.NoError(t, err)

	require.GreaterOrEqual(t, len(m.prompts), 2)
	assert.Contains(t, m.prompts[0], "get-sum", "the planner sees the MCP tools")
	assert.Contains(t, m.prompts[0], `"a": number (First number)`, "with their schemas")
	assert.Contains(t, m.prompts[1], `step "sum": bad input: tool "get-sum": field "a": want number`, "the guard's objection is put to the model")
	results := map[string]string{}
	for _, s := range out.Plan.Steps {
		results[s.ID] = s.Result
		assert.Equal(t, plan.StatusCompleted, s.Status, s.ID)
	}
	assert.Contains(t, results["sum"], "42")
	assert.Equal(t, "Echo: "+results["sum"], results["say"])
}

func TestChatAgentResumeReconnectsToAServerThatDied(t *testing.T) {
	entered, release := make(chan struct{}, 2), make(chan struct{})
	s := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "answers when released"},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		})
	// Each connection is a pair of pipes the test can cut, as the death
	// of a server process cuts its stdio: the client sees the connection
	// end at once, whatever the server's session is doing.
	var mu sync.Mutex
	var cuts []func()
	srv := mcp.Server{Name: "calc", Transport: func() sdk.Transport {
		serverIn, clientOut := io.Pipe()
		clientIn, serverOut := io.Pipe()
		ss, err := s.Connect(context.Background(), &sdk.IOTransport{Reader: serverIn, Writer: serverOut}, nil)
		require.NoError(t, err)
		mu.Lock()
		cuts = append(cuts, func() {
			for _, p := range []io.Closer{serverIn, clientOut, clientIn, serverOut} {
				_ = p.Close()
			}
		})
		mu.Unlock()
		t.Cleanup(func() { _ = ss.Close() })
		return &sdk.IOTransport{Reader: clientIn, Writer: clientOut}
	}}
	c, err := mcp.Connect(t.Context(), srv)
	require.NoError(t, err)
	defer c.Close()

	m := &model{replies: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{call("c1", "slow", `{}`)}}, text("finished")}}
	a := agent.New[agent.NoResponse](m, c.Tools(), agent.WithToolOptions(toolnode.PropagateErrors()))
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	failed := make(chan error, 1)
	go func() {
		_, err := app.Invoke(t.Context(), a.Input(chat.Human("go")), graph.WithThread("t"))
		failed <- err
	}()
	<-entered // the call runs on the server: the server goes away
	mu.Lock()
	require.Len(t, cuts, 1)
	cuts[0]()
	mu.Unlock()
	err = <-failed
	require.ErrorIs(t, err, mcp.ErrServerDown)
	assert.ErrorContains(t, err, `"calc" died during a call of tool "slow"`)

	close(release)
	out, err := app.Invoke(t.Context(), state.Update[agent.State[agent.NoResponse]]{}, graph.WithThread("t"))
	require.NoError(t, err, "the resume reconnects and runs the call again")
	last, _ := chat.Last(out.Messages)
	assert.Equal(t, "finished", last.Text())
	var answers []string
	for _, msg := range out.Messages {
		if r, ok := msg.ToolResponse(); ok {
			answers = append(answers, r.Content)
		}
	}
	assert.Equal(t, []string{"done"}, answers)
	mu.Lock()
	assert.Len(t, cuts, 2, "the resume connected again")
	mu.Unlock()
	assert.Len(t, m.prompts, 2, "the resume did not ask the model again for the call")
}

func TestInputGuardSeesThroughToolWrappers(t *testing.T) {
	c, err := mcp.Connect(t.Context(), inMemory(t, calcServer()))
	require.NoError(t, err)
	defer c.Close()
	wrapped := []tools.Tool{wrapper{toolNamed(t, c.Tools(), "add")}}
	probs := mcp.InputGuard(wrapped)(plan.Plan{Goal: "g", Steps: []plan.Step{{ID: "s", Tool: "add", Input: json.RawMessage(`{"a":1}`)}}})
	require.Len(t, probs, 1)
	assert.Contains(t, probs[0].Message, `missing required field "b"`)
}

// wrapper wraps a tool as telemetry.Tool does.
type wrapper struct{ tools.Tool }

func (w wrapper) Unwrap() tools.Tool { return w.Tool }

func TestPlanExecutorRecordsMCPFailuresAsFailedSteps(t *testing.T) {
	c, err := mcp.Connect(t.Context(), inMemory(t, calcServer()), mcp.WithCallTimeout(time.Minute))
	require.NoError(t, err)
	defer c.Close()
	ex := &nodes.Executor{Tools: c.Tools()}
	for _, tc := range []struct {
		step plan.Step
		kind plan.ErrorKind
		msg  string
	}{
		{plan.Step{ID: "boom", Tool: "fail", Input: json.RawMessage(`{}`)}, plan.ErrKindOther, `mcp: server "calc": tool "fail" failed: the disk is on fire`},
		{plan.Step{ID: "bad", Tool: "add", Input: json.RawMessage(`{"a":1}`)}, plan.ErrKindBadInput, `bad input: tool "add": missing required field "b"`},
	} {
		out := ex.Run(t.Context(), tc.step, plan.Results{})
		assert.Equal(t, plan.StatusFailed, out.Status, tc.step.ID)
		assert.Equal(t, tc.kind, out.ErrKind, tc.step.ID)
		assert.Contains(t, out.Err, tc.msg, tc.step.ID)
	}
	out := ex.Run(t.Context(), plan.Step{ID: "ok", Tool: "add", Input: json.RawMessage(`{"a":2,"b":40}`)}, plan.Results{})
	assert.Equal(t, plan.StatusCompleted, out.Status)
	assert.Equal(t, "42", out.Output)
}
