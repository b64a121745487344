package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

type noState = agent.State[agent.NoResponse]

// runAgent streams the agent's run on thread and returns its final state,
// the middleware steps it streamed (Custom events) and the run's error.
func runAgent(t *testing.T, app *graph.Compiled[noState], in state.Update[noState], thread string) (noState, []agent.Step, error) {
	t.Helper()
	var final noState
	var steps []agent.Step
	for ev, err := range app.Stream(context.Background(), in, graph.WithThread(thread), graph.StreamModes(graph.Values, graph.Custom)) {
		if err != nil {
			return final, steps, err
		}
		switch ev.Mode {
		case graph.Values:
			final = ev.State
		case graph.Custom:
			if s, ok := ev.Custom.(agent.Step); ok {
				steps = append(steps, s)
			}
		}
	}
	return final, steps, nil
}

// historySteps returns the Steps of the thread's latest checkpoint, read
// back through History.
func historySteps(t *testing.T, app *graph.Compiled[noState], thread string) []agent.Step {
	t.Helper()
	for snap, err := range app.History(context.Background(), graph.WithThread(thread)) {
		require.NoError(t, err)
		return snap.Values.Steps
	}
	t.Fatal("no history")
	return nil
}

func echoTool(name string, out func(string) (string, error)) tools.Tool {
	return tool.New(name, "a tool", func(_ context.Context, a weatherArgs) (string, error) { return out(a.City) })
}

func TestModelFallbackMovesToTheNextModelOnA500(t *testing.T) {
	t.Parallel()
	down := fakechat.New(t, fakechat.Rule{Status: 500})
	up := fakechat.NewTurns(t, fakechat.Turn{Content: "Hello from the second model."})
	first, err := openai.New(openai.WithToken("test"), openai.WithBaseURL(down.URL+"/v1"), openai.WithModel("first"))
	require.NoError(t, err)
	a := agent.New[agent.NoResponse](first, nil, agent.WithMiddleware(agent.ModelFallback{Models: []llms.Model{openAI(t, up)}}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)

	out, steps, err := runAgent(t, app, a.Input(chat.Human("hi")), "f")
	require.NoError(t, err)
	assert.Equal(t, "Hello from the second model.", out.Messages[len(out.Messages)-1].Text())
	assert.NotEmpty(t, down.Requests(), "the first model was tried")
	assert.Len(t, up.Requests(), 1)
	require.Len(t, steps, 1)
	assert.Equal(t, "fallback", steps[0].Middleware)
	assert.Contains(t, steps[0].Detail, "model 1 of 2 failed")
	assert.Contains(t, steps[0].Detail, "500")
	assert.Equal(t, steps, historySteps(t, app, "f"), "the step is in History")
}

func TestModelFallbackJoinsTheErrorsWhenEveryModelFails(t *testing.T) {
	t.Parallel()
	down := fakechat.New(t, fakechat.Rule{Status: 500})
	m, err := openai.New(openai.WithToken("test"), openai.WithBaseURL(down.URL+"/v1"), openai.WithModel("first"))
	require.NoError(t, err)
	a := agent.New[agent.NoResponse](m, nil, agent.WithMiddleware(agent.ModelFallback{Models: []llms.Model{m}}))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), a.Input(chat.Human("hi")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "model 1 of 2")
	assert.Contains(t, err.Error(), "model 2 of 2")
}

// A model that asks for a tool call on every turn runs until a bound of
// CallLimit stops it with an error naming the bound.
func TestCallLimitStopsARunawayAgent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit    agent.CallLimit
		name     string
		requests int
		toolRuns int32
	}{
		{agent.CallLimit{RunModelCalls: 3}, "RunModelCalls", 3, 3},
		{agent.CallLimit{ThreadModelCalls: 2}, "ThreadModelCalls", 2, 2},
		{agent.CallLimit{RunToolCalls: 2}, "RunToolCalls", 3, 2},
		{agent.CallLimit{ThreadToolCalls: 1}, "ThreadToolCalls", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakechat.NewTurns(t, fakechat.Turn{ToolCalls: []fakechat.ToolCall{{ID: "c", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
			var ran atomic.Int32
			a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)}, agent.WithMiddleware(tc.limit))
			app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
			require.NoError(t, err)
			_, _, err = runAgent(t, app, a.Input(chat.Human("loop")), "l")
			require.ErrorIs(t, err, agent.ErrCallLimit)
			var le *agent.LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tc.name, le.Limit)
			assert.Contains(t, err.Error(), "CallLimit."+tc.name)
			assert.Len(t, srv.Requests(), tc.requests)
			assert.Equal(t, tc.toolRuns, ran.Load())
		})
	}
}

// The thread bounds count across runs: a second run of the thread is
// refused at once.
func TestCallLimitPerThreadHoldsAcrossRuns(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t, fakechat.Turn{Content: "ok"})
	a := agent.New[agent.NoResponse](openAI(t, srv), nil, agent.WithMiddleware(agent.CallLimit{ThreadModelCalls: 1}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)
	_, _, err = runAgent(t, app, a.Input(chat.Human("one")), "t")
	require.NoError(t, err)
	_, _, err = runAgent(t, app, a.Input(chat.Human("two")), "t")
	require.ErrorIs(t, err, agent.ErrCallLimit)
	assert.Len(t, srv.Requests(), 1)
}

// A tool that returns 200 KB: no prompt holds it whole, the state holds
// the capped result, and the store holds the whole.
func TestToolOutputLimitKeepsA200KBResultOutOfThePrompt(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef", 200<<10/16)
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_big", Name: "dump", Arguments: `{"city":"x"}`}}},
		fakechat.Turn{Content: "done"},
	)
	st, err := memory.New()
	require.NoError(t, err)
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{echoTool("dump", func(string) (string, error) { return big, nil })},
		agent.WithMiddleware(agent.ToolOutputLimit{MaxBytes: 4096}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)), graph.WithStore(st))
	require.NoError(t, err)
	out, steps, err := runAgent(t, app, a.Input(chat.Human("dump it")), "big")
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		assert.Less(t, len(r), 8<<10, "request %d", i)
	}
	assert.Contains(t, reqs[1], big[:4096-16], "the model sees the head of the result")
	res := mustResponse(t, out.Messages[2])
	assert.Less(t, len(res), 5<<10)
	assert.Contains(t, res, `the whole output is in the store, namespace "tool_outputs.big", key "call_big"`)

	item, err := st.Get(context.Background(), []string{"tool_outputs", "big"}, "call_big")
	require.NoError(t, err)
	require.NotNil(t, item)
	assert.Equal(t, big, item.Value["output"])
	require.Len(t, steps, 1)
	assert.Equal(t, agent.Step{Middleware: "output", Action: "stored", Node: agent.NodeTools,
		Detail: `tool "dump" (call "call_big") returned 204800 bytes; 4096 kept`}, steps[0])
	assert.Equal(t, steps, historySteps(t, app, "big"))
}

func TestToolOutputLimitTruncatesWithoutAStore(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	mw := agent.ToolOutputLimit{MaxBytes: 5}
	out, err := mw.WrapTool(context.Background(), chat.Call("c", "t", "{}"), func(context.Context) (string, error) {
		calls.Add(1)
		return "ééééé", nil // 10 bytes: cut at a character boundary
	})
	require.NoError(t, err)
	assert.Equal(t, "éé\n[output truncated: 4 of 10 bytes shown]", out)
	assert.Equal(t, int32(1), calls.Load())
}

const card = "4111 1111 1111 1111"

// A card number in the user's message, the model's reply and a tool's
// result: it is in no request and nowhere in the database file.
func TestRedactKeepsACardNumberOutOfPromptsAndStorage(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "lookup", Arguments: `{"city":"card ` + card + `"}`}}},
		fakechat.Turn{Content: "Your card 4111-1111-1111-1111 is on file; mail me at a.b@example.com."},
	)
	path := filepath.Join(t.TempDir(), "pii.db")
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	a := agent.New[agent.NoResponse](openAI(t, srv),
		[]tools.Tool{echoTool("lookup", func(string) (string, error) { return "card 4111111111111111, phone +47 22 33 44 55", nil })},
		agent.WithMiddleware(agent.Redact{}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	out, steps, err := runAgent(t, app, a.Input(chat.Human("Pay with "+card+" please")), "pii")
	require.NoError(t, err)
	require.NoError(t, saver.Close())

	for i, r := range srv.Requests() {
		assert.NotContains(t, r, "4111", "request %d", i)
	}
	db, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(db), "Pay with [REDACTED_CARD_NUMBER] please", "the file holds messages as text, so the check below can fail")
	for _, form := range []string{card, "4111111111111111", "4111-1111-1111-1111", "a.b@example.com", "22 33 44 55"} {
		assert.NotContains(t, string(db), form)
	}
	assert.Equal(t, "Pay with [REDACTED_CARD_NUMBER] please", out.Messages[0].Text())
	assert.Equal(t, "card [REDACTED_CARD_NUMBER], phone [REDACTED_PHONE]", mustResponse(t, out.Messages[2]))
	assert.Equal(t, "Your card [REDACTED_CARD_NUMBER] is on file; mail me at [REDACTED_EMAIL].", out.Messages[3].Text())
	var details []string
	for _, s := range steps {
		details = append(details, s.Detail)
	}
	assert.Equal(t, []string{
		"the model's reply before storage: 1 card_number",
		`the result of call "call_1": 1 card_number, 1 phone`,
		"the model's reply before storage: 1 card_number, 1 email",
	}, details)
}

func TestRedactDetectors(t *testing.T) {
	t.Parallel()
	r := agent.Redact{}
	for _, tc := range []struct{ in, want string }{
		{"card 4111 1111 1111 1111 ok", "card [REDACTED_CARD_NUMBER] ok"},
		{"not a card 4111 1111 1111 1112", "not a card 4111 1111 1111 1112"}, // fails Luhn; too long for a phone
		{"call +1 (555) 010-9999", "call [REDACTED_PHONE]"},
		{"x@y.org and 5500-0000-0000-0004", "[REDACTED_EMAIL] and [REDACTED_CARD_NUMBER]"},
		{"order 12345, 2024", "order 12345, 2024"},
		{"on 2024-01-15 at 10:30", "on 2024-01-15 at 10:30"},
		{"ring 22 33 44 55 6", "ring [REDACTED_PHONE]"},
	} {
		got, _ := r.Text(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	assert.True(t, agent.Luhn("79927398713"))
	assert.False(t, agent.Luhn("79927398710"))
}

// Past the budget, the old turns become a summary in the state; the model
// is sent the summary, not the old turns; History shows the summary.
func TestSummarizeKeepsASummaryInStateAndSendsIt(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "Summarise the conversation", Content: "SUMMARY: the user likes fjords."},
		fakechat.Turn{Content: "Noted."},
	)
	a := agent.New[agent.NoResponse](openAI(t, srv), nil,
		agent.WithMiddleware(agent.Summarize{MaxTokens: 60, Keep: history.Window{MaxMessages: 2}}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)
	old := strings.Repeat("I like fjords and long walks. ", 10)
	out, steps, err := runAgent(t, app, a.Input(chat.Human(old).WithID("h1"), chat.AI("Nice.").WithID("a1"), chat.Human("Anything else?").WithID("h2")), "s")
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[0], "long walks", "the summary call reads the old turns")
	assert.Contains(t, reqs[1], "SUMMARY: the user likes fjords.")
	assert.NotContains(t, reqs[1], "long walks", "the answer's call is sent the summary instead")
	require.Len(t, out.Messages, 4)
	assert.Equal(t, history.SummaryID, out.Messages[0].ID)
	assert.Equal(t, []string{history.SummaryID, "a1", "h2"}, []string{out.Messages[0].ID, out.Messages[1].ID, out.Messages[2].ID})
	assert.Equal(t, "Noted.", out.Messages[3].Text())
	require.Len(t, steps, 1)
	assert.Equal(t, "summarized", steps[0].Action)
	assert.Equal(t, steps, historySteps(t, app, "s"))
	for snap, err := range app.History(context.Background(), graph.WithThread("s"), graph.WithLimit(1)) {
		require.NoError(t, err)
		assert.Contains(t, snap.Values.Messages[0].Text(), "SUMMARY: the user likes fjords.")
	}
}

// A tool that fails twice is retried with the backoff's pauses, taken by
// the injected sleep, and its third answer goes to the model.
func TestToolRetryRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "flaky", Arguments: `{"city":"x"}`}}},
		fakechat.Turn{Content: "done"},
	)
	var tries atomic.Int32
	flaky := echoTool("flaky", func(string) (string, error) {
		if tries.Add(1) < 3 {
			return "", errors.New("temporarily down")
		}
		return "up", nil
	})
	var slept []time.Duration
	retry := agent.ToolRetry{MaxAttempts: 4,
		Backoff: func(n int) time.Duration { return time.Duration(n) * time.Second },
		Sleep:   func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{flaky}, agent.WithMiddleware(retry))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)
	out, steps, err := runAgent(t, app, a.Input(chat.Human("go")), "r")
	require.NoError(t, err)
	assert.Equal(t, int32(3), tries.Load())
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, slept)
	assert.Equal(t, "up", mustResponse(t, out.Messages[2]))
	require.Len(t, steps, 2)
	assert.Contains(t, steps[0].Detail, `tool "flaky" (call "call_1") attempt 1 of 4 failed (temporarily down); next in 1s`)
	assert.Equal(t, 1, out.ToolCalls)
}

func TestToolRetryGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	n := 0
	r := agent.ToolRetry{MaxAttempts: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
	_, err := r.WrapTool(context.Background(), chat.Call("c", "t", "{}"), func(context.Context) (string, error) {
		n++
		return "", fmt.Errorf("fail %d", n)
	})
	require.EqualError(t, err, "fail 2")
	assert.Equal(t, 2, n)
}

// The context hook edits what the model is sent before each call; the
// state keeps the history as it was.
func TestEditContextChangesOnlyWhatIsSent(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
		fakechat.Turn{Content: "done"},
	)
	var ran atomic.Int32
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)},
		agent.WithMiddleware(agent.ClearToolResults(0, "[cleared]")))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)
	out, steps, err := runAgent(t, app, a.Input(chat.Human("weather?")), "c")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.NotContains(t, reqs[1], "sunny, 21")
	assert.Contains(t, reqs[1], "[cleared]")
	assert.Equal(t, "sunny, 21°C in Oslo", mustResponse(t, out.Messages[2]))
	require.Len(t, steps, 1)
	assert.Equal(t, agent.Step{Middleware: "context", Action: "edited", Node: agent.NodeAgent, Detail: "3 messages sent instead of 3"}, steps[0])
}

// Middleware applies in list order, the first outermost, around both the
// model and the tool calls.
func TestMiddlewareOrder(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
		fakechat.Turn{Content: "done"},
	)
	var log []string
	var ran atomic.Int32
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)},
		agent.WithMiddleware(tracer{"a", &log}, tracer{"b", &log}))
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), a.Input(chat.Human("weather?")))
	require.NoError(t, err)
	assert.Equal(t, []string{"a model", "b model", "b model done", "a model done", "a tool", "b tool", "b tool done", "a tool done",
		"a model", "b model", "b model done", "a model done"}, log)
}

type tracer struct {
	name string
	log  *[]string
}

func (tr tracer) WrapModel(ctx context.Context, call *agent.ModelCall, next agent.ModelFunc) (*llms.ContentResponse, error) {
	*tr.log = append(*tr.log, tr.name+" model")
	defer func() { *tr.log = append(*tr.log, tr.name+" model done") }()
	return next(ctx, call)
}

func (tr tracer) WrapTool(ctx context.Context, _ llms.ToolCall, run func(context.Context) (string, error)) (string, error) {
	*tr.log = append(*tr.log, tr.name+" tool")
	defer func() { *tr.log = append(*tr.log, tr.name+" tool done") }()
	return run(ctx)
}

func sqliteSaver(t *testing.T) checkpoint.Saver { return chattest.Savers(t)["sqlite"] }

// Input written without Agent.Input (a graph of your own) still holds a
// card number: Redact rewrites the stored message before the model call,
// and a Summarize after it summarises redacted text.
func TestRedactBeforeSummarizeRewritesTheStoredHistory(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "Summarise the conversation", Content: "SUMMARY: a card was given."},
		fakechat.Turn{Content: "Paid."},
	)
	a := agent.New[agent.NoResponse](openAI(t, srv), nil, agent.WithMiddleware(
		agent.Redact{}, agent.Summarize{MaxTokens: 30, Keep: history.Window{MaxMessages: 1}}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)
	in := state.Writes(a.Messages.Set([]chat.Message{
		chat.Human("My card is " + card + ". " + strings.Repeat("Please charge it. ", 8)).WithID("h1"),
		chat.AI("Which amount?").WithID("a1"), chat.Human("42 EUR").WithID("h2")}))
	out, steps, err := runAgent(t, app, in, "rs")
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		assert.NotContains(t, r, "4111", "request %d", i)
	}
	assert.Contains(t, reqs[0], "[REDACTED_CARD_NUMBER]", "the summary is written from the redacted text")
	require.Len(t, out.Messages, 3)
	assert.Equal(t, []string{history.SummaryID, "h2"}, []string{out.Messages[0].ID, out.Messages[1].ID})
	assert.Equal(t, "Paid.", out.Messages[2].Text())
	var kinds []string
	for _, s := range steps {
		kinds = append(kinds, s.Middleware+" "+s.Action)
	}
	assert.Equal(t, []string{"redact redacted", "summarize summarized"}, kinds)
}
