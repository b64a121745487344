package toolnode_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// recorder is a tool that records the inputs it ran with.
type recorder struct {
	mu  sync.Mutex
	ran []string
}

func (r *recorder) tool(name string) tools.Tool {
	return fn{name, func(_ context.Context, in string) (string, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ran = append(r.ran, name+":"+in)
		return name + " did " + in, nil
	}}
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ran...)
}

// reviewed is a graph whose input's calls of "send" and "pay" go through a
// ReviewNode before the tools node; the others are dispatched at once.
func reviewed(t *testing.T, saver checkpoint.Saver, ts []tools.Tool) *graph.Compiled[convo] {
	t.Helper()
	need := toolnode.ReviewTools("send", "pay")
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("tools", toolnode.New(msgs, ts))
	g.AddNode("review", toolnode.ReviewNode(msgs, "tools", need), graph.WithDestinations("tools"))
	dispatch := toolnode.Dispatch(msgs, "tools", graph.End)
	g.AddConditionalEdges(graph.Start, func(ctx context.Context, s convo) (graph.Route[convo], error) {
		if toolnode.NeedsReview(s.Messages, need) {
			return graph.Route[convo]{To: []string{"review"}}, nil
		}
		return dispatch(ctx, s)
	}, "tools", "review", graph.End)
	g.AddEdge("tools", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

// Three calls, two reviewed: the run stops with one interrupt listing
// them, runs no tool, and on resume (in a fresh graph, as another process
// would) runs the approved call unchanged, the edited call with its new
// arguments, not the rejected one, and rewrites the AI message's call.
func TestReviewApprovesEditsAndRejectsCalls(t *testing.T) {
	t.Parallel()
	for name, saver := range chattest.Savers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var rec recorder
			ts := []tools.Tool{rec.tool("look"), rec.tool("send"), rec.tool("pay")}
			thread := graph.WithThread("review-" + name)
			in := state.Writes(msgs.Set([]chat.Message{chat.AI("",
				chat.Call("c1", "send", `{"input":"hello"}`),
				chat.Call("c2", "look", `{"input":"around"}`),
				chat.Call("c3", "pay", `{"input":"100"}`),
			).WithID("ai")}))
			_, err := reviewed(t, saver, ts).Invoke(ctx, in, thread)
			var ie *graph.InterruptError
			require.ErrorAs(t, err, &ie)
			require.Len(t, ie.Interrupts, 1)
			rev, err := graph.Payload[toolnode.Review](ie.Interrupts[0])
			require.NoError(t, err)
			assert.Equal(t, toolnode.Review{MessageID: "ai", Calls: []toolnode.ReviewCall{
				{ID: "c1", Tool: "send", Args: `{"input":"hello"}`},
				{ID: "c3", Tool: "pay", Args: `{"input":"100"}`},
			}}, rev)
			assert.Empty(t, rec.calls(), "no tool runs before the decisions")

			// The payload read back from the checkpoint is the same.
			snap, err := reviewed(t, saver, ts).State(ctx, thread)
			require.NoError(t, err)
			stored, err := graph.Payload[toolnode.Review](snap.Interrupts[0])
			require.NoError(t, err)
			assert.Equal(t, rev, stored)

			out, err := reviewed(t, saver, ts).Invoke(ctx, state.Update[convo]{}, thread,
				graph.Resume([]toolnode.Decision{toolnode.Edit(`{"input":"hello, politely"}`), toolnode.Reject("too expensive")}))
			require.NoError(t, err)
			assert.ElementsMatch(t, []string{"send:hello, politely", "look:around"}, rec.calls())
			require.Len(t, out.Messages, 4)
			ai := out.Messages[0]
			assert.Equal(t, "ai", ai.ID, "replaced in place")
			assert.Equal(t, `{"input":"hello, politely"}`, ai.ToolCalls()[0].FunctionCall.Arguments)
			assert.Equal(t, `{"input":"100"}`, ai.ToolCalls()[2].FunctionCall.Arguments)
			r := toolReplies(t, out.Messages)
			assert.Equal(t, "send did hello, politely", r[0].Content)
			assert.Equal(t, "look did around", r[1].Content)
			assert.Equal(t, "The reviewer rejected this call; it was not run. Reason: too expensive", r[2].Content)
		})
	}
}

func TestReviewRefusesBadDecisions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		decisions []toolnode.Decision
		want      string
	}{
		{"too few", []toolnode.Decision{toolnode.Approve()}, `review of message "ai": got 1 decisions for 2 calls`},
		{"not JSON", []toolnode.Decision{toolnode.Approve(), toolnode.Edit("{")}, `call "c3" (pay): edited arguments are not JSON: "{"`},
		{"unknown action", []toolnode.Decision{{Action: "maybe"}, toolnode.Approve()}, `call "c1" (send): unknown action "maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var rec recorder
			app := reviewed(t, chattest.Savers(t)["memory"], []tools.Tool{rec.tool("send"), rec.tool("pay")})
			thread := graph.WithThread("bad")
			in := state.Writes(msgs.Set([]chat.Message{chat.AI("", chat.Call("c1", "send", `{}`), chat.Call("c3", "pay", `{}`)).WithID("ai")}))
			_, err := app.Invoke(ctx, in, thread)
			require.ErrorIs(t, err, graph.ErrInterrupted)
			_, err = app.Invoke(ctx, state.Update[convo]{}, thread, graph.Resume(tc.decisions))
			require.ErrorContains(t, err, tc.want)
			assert.Empty(t, rec.calls())
		})
	}
}

func TestCallsNotSelectedForReviewRunWithoutInterrupt(t *testing.T) {
	t.Parallel()
	var rec recorder
	app := reviewed(t, chattest.Savers(t)["memory"], []tools.Tool{rec.tool("look")})
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.AI("", chat.Call("c1", "look", `{"input":"up"}`))})), graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"look:up"}, rec.calls())
	assert.Equal(t, llms.ChatMessageTypeTool, out.Messages[1].Role)
}
