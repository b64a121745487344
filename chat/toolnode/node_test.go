package toolnode_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type convo struct{ Messages []chat.Message }

var msgs = chat.Messages("messages", func(s *convo) *[]chat.Message { return &s.Messages })

// fn is a plain tool.
type fn struct {
	name string
	f    func(ctx context.Context, in string) (string, error)
}

func (t fn) Name() string                                        { return t.name }
func (t fn) Description() string                                 { return "the " + t.name + " tool" }
func (t fn) Call(ctx context.Context, in string) (string, error) { return t.f(ctx, in) }

var _ tools.Tool = fn{}

// runTools runs a graph of only the tool node on an AI message with calls.
func runTools(t *testing.T, ts []tools.Tool, calls []llms.ToolCall, opts ...toolnode.Option) ([]chat.Message, error) {
	t.Helper()
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("tools", toolnode.New(msgs, ts, opts...))
	g.AddEdge(graph.Start, "tools").AddEdge("tools", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.Human("go"), chat.AI("", calls...).WithID("ai")})))
	return out.Messages, err
}

func toolReplies(t *testing.T, ms []chat.Message) []llms.ToolCallResponse {
	t.Helper()
	var out []llms.ToolCallResponse
	for _, m := range ms {
		if r, ok := m.ToolResponse(); ok {
			out = append(out, r)
		}
	}
	return out
}

// All calls run at once: each waits until all have started, which only
// happens if they run in parallel; and the answers keep the calls' order
// although they finish in reverse.
func TestCallsRunInParallelAndAnswerInCallOrder(t *testing.T) {
	t.Parallel()
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	var calls []llms.ToolCall
	for i := range n {
		calls = append(calls, chat.Call(fmt.Sprintf("c%d", i), "echo", fmt.Sprintf(`{"input":"%d"}`, i)))
	}
	echo := fn{"echo", func(ctx context.Context, in string) (string, error) {
		started.Done()
		started.Wait()
		var i int
		fmt.Sscan(in, &i)
		<-done[i+1] // the last call finishes first
		close(done[i])
		return "got " + in, nil
	}}
	out, err := runTools(t, []tools.Tool{echo}, calls, toolnode.WithMaxParallel(n))
	require.NoError(t, err)
	replies := toolReplies(t, out)
	require.Len(t, replies, n)
	for i, r := range replies {
		assert.Equal(t, fmt.Sprintf("c%d", i), r.ToolCallID)
		assert.Equal(t, "echo", r.Name)
		assert.Equal(t, fmt.Sprintf("got %d", i), r.Content)
	}
}

func TestMaxParallelBoundsTheCallsAtOnce(t *testing.T) {
	t.Parallel()
	var now, peak atomic.Int32
	slow := fn{"slow", func(ctx context.Context, in string) (string, error) {
		c := now.Add(1)
		for {
			p := peak.Load()
			if c <= p || peak.CompareAndSwap(p, c) {
				break
			}
		}
		defer now.Add(-1)
		return in, nil
	}}
	var calls []llms.ToolCall
	for i := range 20 {
		calls = append(calls, chat.Call(fmt.Sprint(i), "slow", `{"input":"x"}`))
	}
	out, err := runTools(t, []tools.Tool{slow}, calls, toolnode.WithMaxParallel(2))
	require.NoError(t, err)
	require.Len(t, toolReplies(t, out), 20)
	assert.LessOrEqual(t, peak.Load(), int32(2))
}

func TestFailedCallsBecomeToolMessages(t *testing.T) {
	t.Parallel()
	boom := fn{"boom", func(context.Context, string) (string, error) { return "", errors.New("disk on fire") }}
	panics := fn{"panics", func(context.Context, string) (string, error) { panic("oops") }}
	type args struct {
		City string `json:"city"`
	}
	typed := tool.New("weather", "the weather in a city", func(_ context.Context, a args) (string, error) {
		return "sunny in " + a.City, nil
	})
	ts := []tools.Tool{boom, panics, typed}
	calls := []llms.ToolCall{
		chat.Call("1", "boom", `{"input":"x"}`),
		chat.Call("2", "panics", `{"input":"x"}`),
		chat.Call("3", "nope", `{}`),
		chat.Call("4", "weather", `{"city":"Oslo"}`),
		chat.Call("5", "weather", `{"town":"Oslo"}`),
	}
	out, err := runTools(t, ts, calls)
	require.NoError(t, err)
	r := toolReplies(t, out)
	require.Len(t, r, 5)
	assert.Equal(t, "Error: disk on fire\nCorrect the call and try again.", r[0].Content)
	assert.Contains(t, r[1].Content, `tool "panics" panicked: oops`)
	assert.Contains(t, r[2].Content, `"nope" is not a tool; the tools are: boom, panics, weather`)
	assert.Equal(t, "sunny in Oslo", r[3].Content, "a typed tool gets the call's arguments")
	assert.Contains(t, r[4].Content, `missing required field "city"`)

	custom := toolnode.WithErrorHandler(func(c llms.ToolCall, err error) (string, error) {
		return "failed " + c.ID, nil
	})
	out, err = runTools(t, ts, calls[:1], custom)
	require.NoError(t, err)
	assert.Equal(t, "failed 1", toolReplies(t, out)[0].Content)

	_, err = runTools(t, ts, calls, toolnode.PropagateErrors())
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, "tools", ne.Node)
	assert.ErrorContains(t, err, `call "1" of tool "boom": disk on fire`)
}

func TestNodeNeedsAnAIMessageAndWritesNothingWithoutCalls(t *testing.T) {
	t.Parallel()
	out, err := runTools(t, nil, nil)
	require.NoError(t, err)
	require.Len(t, out, 2, "no calls, nothing written")

	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("tools", toolnode.New(msgs, nil))
	g.AddEdge(graph.Start, "tools").AddEdge("tools", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.Human("hi").WithID("h1")})))
	require.ErrorContains(t, err, `the last message (id "h1") is a human message, not an AI message`)
}

func TestConditionRoutesOnToolCalls(t *testing.T) {
	t.Parallel()
	r := toolnode.Condition(msgs, "tools")
	for _, tc := range []struct {
		name string
		h    []chat.Message
		want string
	}{
		{"no messages", nil, graph.End},
		{"ai with calls", []chat.Message{chat.AI("", chat.Call("1", "x", "{}"))}, "tools"},
		{"ai without calls", []chat.Message{chat.AI("done")}, graph.End},
		{"a tool answer last", []chat.Message{chat.AI("", chat.Call("1", "x", "{}")), chat.ToolResult("1", "x", "ok")}, graph.End},
	} {
		route, err := r(context.Background(), convo{Messages: tc.h})
		require.NoError(t, err, tc.name)
		assert.Equal(t, []string{tc.want}, route.To, tc.name)
	}
}

func TestDefinitionsOfferSchemasOrAnInput(t *testing.T) {
	t.Parallel()
	type args struct {
		City string `json:"city"`
	}
	typed := tool.New("weather", "the weather", func(context.Context, args) (string, error) { return "", nil })
	defs := toolnode.Definitions([]tools.Tool{typed, fn{name: "plain"}})
	require.Len(t, defs, 2)
	assert.Equal(t, "weather", defs[0].Function.Name)
	assert.JSONEq(t, string(typed.InputSchema()), fmt.Sprintf("%s", defs[0].Function.Parameters))
	assert.Equal(t, "the plain tool", defs[1].Function.Description)
	assert.Equal(t, []string{"input"}, defs[1].Function.Parameters.(map[string]any)["required"])
}

// Run works outside a graph, and a hook sees each call: here it refuses
// one tool and bounds the others.
func TestRunWithACallHook(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	echo := fn{"echo", func(_ context.Context, in string) (string, error) { ran.Add(1); return in, nil }}
	drop := fn{"drop", func(context.Context, string) (string, error) { ran.Add(1); return "dropped", nil }}
	hook := toolnode.WithCallHook(func(ctx context.Context, c llms.ToolCall, run func(context.Context) (string, error)) (string, error) {
		if c.FunctionCall.Name == "drop" {
			return "", errors.New("refused by policy")
		}
		out, err := run(ctx)
		return "[" + out + "]", err
	})
	out, err := toolnode.Run(context.Background(), []chat.Message{chat.AI("",
		chat.Call("1", "echo", `{"input":"a"}`), chat.Call("2", "drop", `{}`), chat.Call("3", "echo", `{"input":"b"}`))},
		[]tools.Tool{echo, drop}, hook)
	require.NoError(t, err)
	r := toolReplies(t, out)
	require.Len(t, r, 3)
	assert.Equal(t, "[a]", r[0].Content)
	assert.Equal(t, "Error: refused by policy\nCorrect the call and try again.", r[1].Content)
	assert.Equal(t, "[b]", r[2].Content)
	assert.Equal(t, int32(2), ran.Load())
}

// A hook knows each call's position, even when calls share an id, and an
// error handler tells a call of a tool that does not exist by
// ErrUnknownTool.
func TestCallIndexAndErrUnknownTool(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[int]string{}
	echo := fn{"echo", func(_ context.Context, in string) (string, error) { return in, nil }}
	hook := toolnode.WithCallHook(func(ctx context.Context, c llms.ToolCall, run func(context.Context) (string, error)) (string, error) {
		i, ok := toolnode.CallIndex(ctx)
		require.True(t, ok)
		mu.Lock()
		seen[i] = c.FunctionCall.Arguments
		mu.Unlock()
		return run(ctx)
	})
	handler := toolnode.WithErrorHandler(func(c llms.ToolCall, err error) (string, error) {
		return fmt.Sprintf("unknown=%v", errors.Is(err, toolnode.ErrUnknownTool)), nil
	})
	out, err := toolnode.Run(context.Background(), []chat.Message{chat.AI("",
		chat.Call("same", "echo", `{"input":"a"}`), chat.Call("same", "nope", `{}`), chat.Call("same", "echo", `{"input":"b"}`))},
		[]tools.Tool{echo}, hook, handler)
	require.NoError(t, err)
	assert.Equal(t, map[int]string{0: `{"input":"a"}`, 2: `{"input":"b"}`}, seen)
	assert.Equal(t, "unknown=true", toolReplies(t, out)[1].Content)
	_, ok := toolnode.CallIndex(context.Background())
	assert.False(t, ok)
}

// Hooks given in several WithCallHook options all apply, the first
// outermost; a handoff error (graph.ToParent) is not turned into a reply.
func TestCallHooksComposeInOrder(t *testing.T) {
	t.Parallel()
	echo := fn{"echo", func(_ context.Context, in string) (string, error) { return in, nil }}
	wrap := func(name string) toolnode.Option {
		return toolnode.WithCallHook(func(ctx context.Context, _ llms.ToolCall, run func(context.Context) (string, error)) (string, error) {
			out, err := run(ctx)
			return name + "(" + out + ")", err
		})
	}
	out, err := toolnode.Run(context.Background(), []chat.Message{chat.AI("", chat.Call("c", "echo", `{"input":"x"}`))},
		[]tools.Tool{echo}, wrap("outer"), wrap("inner"))
	require.NoError(t, err)
	assert.Equal(t, "outer(inner(x))", toolReplies(t, out)[0].Content)

	handoff := fn{"go", func(context.Context, string) (string, error) {
		return "", graph.ToParent(state.Update[convo]{Goto: []string{"elsewhere"}})
	}}
	_, err = toolnode.Run(context.Background(), []chat.Message{chat.AI("", chat.Call("h", "go", `{}`))}, []tools.Tool{handoff})
	require.Error(t, err)
	assert.True(t, graph.IsHandoff(err))
}
