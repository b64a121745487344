package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func openAI(t *testing.T, srv *fakechat.TurnServer) llms.Model {
	t.Helper()
	m, err := openai.New(openai.WithToken("test"), openai.WithBaseURL(srv.URL+"/v1"), openai.WithModel("test"))
	require.NoError(t, err)
	return m
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=the city"`
}

func weatherTool(calls *atomic.Int32) tools.Tool {
	return tool.New("get_weather", "the weather in a city", func(_ context.Context, a weatherArgs) (string, error) {
		calls.Add(1)
		return "sunny, 21°C in " + a.City, nil
	})
}

type Forecast struct {
	City    string `json:"city"`
	Celsius int    `json:"celsius"`
	Summary string `json:"summary"`
}

// The whole loop through langchaingo's OpenAI client: a tool call, its
// answer, the final reply streamed with its message id, and the structured
// answer by a forced "respond" call.
func TestAgentCallsToolsAndAnswersInStructureThroughOpenAI(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: `"tool_choice"`, ToolCalls: []fakechat.ToolCall{{ID: "call_r", Name: "respond", Arguments: `{"city":"Oslo","celsius":21,"summary":"sunny"}`}}},
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
		fakechat.Turn{Once: true, Content: "It is sunny and 21 degrees in Oslo today."},
	)
	var ran atomic.Int32
	a := agent.New[Forecast](openAI(t, srv), []tools.Tool{weatherTool(&ran)}, agent.WithPrompt("You are a weather bot."))
	app, err := a.Graph.Compile(graph.WithCheckpointer(chattest.Savers(t)["sqlite"]))
	require.NoError(t, err)

	tokensByID := map[string]string{}
	var final agent.State[Forecast]
	for ev, err := range app.Stream(context.Background(), a.Input(chat.Human("What is the weather in Oslo?")),
		graph.WithThread("w"), graph.StreamModes(graph.Values, graph.Messages)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Messages:
			assert.Equal(t, agent.NodeAgent, ev.Node)
			tokensByID[ev.MessageID] += string(ev.Chunk)
		case graph.Values:
			final = ev.State
		}
	}
	assert.Equal(t, Forecast{City: "Oslo", Celsius: 21, Summary: "sunny"}, final.Response)
	assert.Equal(t, 3, final.ModelCalls)
	assert.Equal(t, int32(1), ran.Load())
	require.Len(t, final.Messages, 4)
	assert.Equal(t, "It is sunny and 21 degrees in Oslo today.", final.Messages[3].Text())
	assert.Equal(t, "sunny, 21°C in Oslo", final.Messages[2].Text()+mustResponse(t, final.Messages[2]))

	// Each chunk carries the id of the message it becomes: the first call's
	// (langchaingo's OpenAI client streams a tool call as one JSON chunk),
	// then the reply's, word by word.
	byID := tokensByID
	assert.Len(t, byID, 2)
	assert.Contains(t, byID[final.Messages[1].ID], `"get_weather"`)
	assert.Equal(t, "It is sunny and 21 degrees in Oslo today.", byID[final.Messages[3].ID])
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[0], "You are a weather bot.")
	assert.Contains(t, reqs[0], `"get_weather"`)
	assert.Contains(t, reqs[0], `"description":"the city"`, "the typed tool's schema is offered")
	assert.Contains(t, reqs[1], `"tool_call_id":"call_1"`)
	assert.Contains(t, reqs[2], `"tool_choice":{"function":{"name":"respond"},"type":"function"}`)
}

func mustResponse(t *testing.T, m chat.Message) string {
	t.Helper()
	r, ok := m.ToolResponse()
	require.True(t, ok)
	return r.Content
}

// A tool call that needs review stops the run; a fresh graph on the same
// database (another process) resumes it with an edit, and the agent
// finishes with the edited call's result.
func TestAgentReviewResumesInAnotherProcess(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Osl"}`}}},
		fakechat.Turn{Once: true, Content: "Sunny in Oslo."},
	)
	saver := chattest.Savers(t)["sqlite"]
	var ran atomic.Int32
	build := func() (*agent.Agent[agent.NoResponse], *graph.Compiled[agent.State[agent.NoResponse]]) {
		a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)}, agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
		app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
		require.NoError(t, err)
		return a, app
	}
	ctx := context.Background()
	a, app := build()
	assert.Contains(t, app.Mermaid(), "agent -.-> review;\n\tagent -.-> tools;\n\treview -.-> tools;\n\ttools --> agent;")
	_, err := app.Invoke(ctx, a.Input(chat.Human("weather in Oslo?")), graph.WithThread("r"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, agent.NodeReview, ie.Interrupts[0].Node)
	rev, err := graph.Payload[toolnode.Review](ie.Interrupts[0])
	require.NoError(t, err)
	require.Equal(t, []toolnode.ReviewCall{{ID: "call_1", Tool: "get_weather", Args: `{"city":"Osl"}`}}, rev.Calls)
	assert.Zero(t, ran.Load())

	_, app = build()
	out, err := app.Invoke(ctx, state.Update[agent.State[agent.NoResponse]]{}, graph.WithThread("r"),
		graph.Resume([]toolnode.Decision{toolnode.Edit(`{"city":"Oslo"}`)}))
	require.NoError(t, err)
	assert.Equal(t, int32(1), ran.Load())
	assert.Equal(t, 2, out.ModelCalls)
	assert.Equal(t, "Sunny in Oslo.", out.Messages[len(out.Messages)-1].Text())
	assert.Equal(t, `{"city":"Oslo"}`, out.Messages[1].ToolCalls()[0].FunctionCall.Arguments)
	assert.Equal(t, "sunny, 21°C in Oslo", mustResponse(t, out.Messages[2]))
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the model is not called again on resume")
	assert.Contains(t, reqs[1], `{\"city\":\"Oslo\"}`, "the model sees the edited call")
}

func TestAgentStopsAtTheModelCallLimit(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t, fakechat.Turn{ToolCalls: []fakechat.ToolCall{{ID: "c", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	var ran atomic.Int32
	a := agent.New[Forecast](openAI(t, srv), []tools.Tool{weatherTool(&ran)}, agent.WithMaxModelCalls(2))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("loop")))
	require.NoError(t, err)
	assert.Equal(t, 2, out.ModelCalls)
	assert.Equal(t, int32(2), ran.Load())
	last := out.Messages[len(out.Messages)-1]
	assert.True(t, agent.IsLimitStop(last))
	assert.Equal(t, "Stopped: the limit of 2 model calls is reached before a final answer.", last.Text())
	assert.Zero(t, out.Response, "no structured answer after a stop")
	assert.Len(t, srv.Requests(), 2)
}

func TestAgentStructuredAnswerFromJSONText(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: `"json_object"`, Content: "Here:\n```json\n{\"city\":\"Bergen\",\"celsius\":9,\"summary\":\"rain\"}\n```"},
		fakechat.Turn{Content: "Rain in Bergen."},
	)
	a := agent.New[Forecast](openAI(t, srv), nil, agent.WithStructuredMode(agent.StructuredJSON))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("Bergen?")))
	require.NoError(t, err)
	assert.Equal(t, Forecast{City: "Bergen", Celsius: 9, Summary: "rain"}, out.Response)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(reqs[1]), &body))
	assert.Contains(t, body.Messages[0]["content"], `"celsius"`, "the schema is in the prompt")
}

func TestAgentStructuredAnswerThatDoesNotDecodeNamesTheCall(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: `"tool_choice"`, Content: "I cannot."},
		fakechat.Turn{Content: "Hm."},
	)
	a := agent.New[Forecast](openAI(t, srv), nil)
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), a.Input(chat.Human("?")))
	require.ErrorIs(t, err, agent.ErrStructuredResponse)
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, agent.NodeRespond, ne.Node)
	assert.ErrorContains(t, err, "model call 2")
}

func TestAgentWindowTrimsWhatTheModelIsSent(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t, fakechat.Turn{Content: "ok"})
	a := agent.New[agent.NoResponse](openAI(t, srv), nil, agent.WithWindow(history.Window{MaxMessages: 1}))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("old question"), chat.AI("old answer"), chat.Human("new question")))
	require.NoError(t, err)
	assert.Len(t, out.Messages, 4, "the state keeps everything")
	req := srv.Requests()[0]
	assert.Contains(t, req, "new question")
	assert.NotContains(t, req, "old question")
}

// The bound is per turn: a new human message starts a new count, while
// ModelCalls keeps the thread's total.
func TestModelCallLimitIsPerTurn(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t, fakechat.Turn{Content: "fine"})
	a := agent.New[agent.NoResponse](openAI(t, srv), nil, agent.WithMaxModelCalls(1))
	app, err := a.Graph.Compile(graph.WithCheckpointer(chattest.Savers(t)["memory"]))
	require.NoError(t, err)
	for i := range 3 {
		out, err := app.Invoke(context.Background(), a.Input(chat.Human("again")), graph.WithThread("turns"))
		require.NoError(t, err)
		assert.Equal(t, i+1, out.ModelCalls)
		assert.False(t, agent.IsLimitStop(out.Messages[len(out.Messages)-1]))
	}
}

// The agent sends each tool call as a task of its own: when one call's
// tool stops for a human (graph.Interrupt inside the tool), its sibling
// finishes, and the resume — in a fresh graph on the same database — runs
// only the interrupted call; the model sees both answers in call order.
func TestAgentResumeRunsOnlyTheInterruptedToolCall(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{
			{ID: "call_w", Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			{ID: "call_b", Name: "book", Arguments: `{"input":"a table"}`},
		}},
		fakechat.Turn{Once: true, Content: "Sunny; the table is booked."},
	)
	saver := chattest.Savers(t)["sqlite"]
	var weather, book atomic.Int32
	booking := fn{"book", func(ctx context.Context, in string) (string, error) {
		book.Add(1)
		ok, err := graph.Interrupt[bool](ctx, "book "+in+"?")
		if err != nil || !ok {
			return "not booked", err
		}
		return "booked " + in, nil
	}}
	build := func() (*agent.Agent[agent.NoResponse], *graph.Compiled[agent.State[agent.NoResponse]]) {
		a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&weather), booking})
		app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
		require.NoError(t, err)
		return a, app
	}
	ctx := context.Background()
	a, app := build()
	_, err := app.Invoke(ctx, a.Input(chat.Human("weather in Oslo, and book a table")), graph.WithThread("b"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	assert.Equal(t, [2]int32{1, 1}, [2]int32{weather.Load(), book.Load()})

	_, app = build()
	out, err := app.Invoke(ctx, state.Update[agent.State[agent.NoResponse]]{}, graph.WithThread("b"), graph.Resume(true))
	require.NoError(t, err)
	assert.Equal(t, [2]int32{1, 2}, [2]int32{weather.Load(), book.Load()}, "the weather call is not run again")
	require.Len(t, out.Messages, 5)
	assert.Equal(t, "sunny, 21°C in Oslo", mustResponse(t, out.Messages[2]))
	assert.Equal(t, "booked a table", mustResponse(t, out.Messages[3]))
	assert.Equal(t, "Sunny; the table is booked.", out.Messages[4].Text())
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Less(t, strings.Index(reqs[1], `"tool_call_id":"call_w"`), strings.Index(reqs[1], `"tool_call_id":"call_b"`))
}

// fn is a plain tool.
type fn struct {
	name string
	f    func(ctx context.Context, in string) (string, error)
}

func (t fn) Name() string                                        { return t.name }
func (t fn) Description() string                                 { return "the " + t.name + " tool" }
func (t fn) Call(ctx context.Context, in string) (string, error) { return t.f(ctx, in) }
