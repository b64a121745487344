package chat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// every is a history with every kind of part.
func every() []chat.Message {
	return []chat.Message{
		chat.System("be brief").WithID("s"),
		{ID: "h", Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
			llms.TextContent{Text: "what is on this picture?"},
			llms.ImageURLContent{URL: "https://example.com/cat.png", Detail: "low"},
			llms.BinaryContent{MIMEType: "image/png", Data: []byte{0, 1, 2, 255}},
		}},
		chat.AI("let me look", chat.Call("call_1", "lookup", `{"q":"cat"}`), chat.Call("call_2", "weather", `{}`)).WithID("a"),
		chat.ToolResult("call_1", "lookup", "a cat").WithID("t1"),
		chat.ToolResult("call_2", "weather", "").WithID("t2"),
		chat.AI("a cat").WithID("a2"),
	}
}

func TestMessageJSONRoundTripIsLossless(t *testing.T) {
	t.Parallel()
	in := every()
	b, err := json.Marshal(in)
	require.NoError(t, err)
	var out []chat.Message
	require.NoError(t, json.Unmarshal(b, &out))
	require.Equal(t, in, out)
	// And back through llms.MessageContent.
	for i, m := range out {
		require.Equal(t, in[i], chat.FromContent(m.ID, m.Content()))
	}
}

func TestOldFormNamesAnUnknownPart(t *testing.T) {
	t.Parallel()
	var m chat.Message
	err := json.Unmarshal([]byte(`{"id":"x","role":"ai","parts":[{"type":"video"}]}`), &m)
	require.ErrorIs(t, err, chat.ErrBadMessage)
	require.ErrorContains(t, err, `field "parts[0].type": unknown part type "video"`)
}

type convo struct{ Messages []chat.Message }

var convoMessages = chat.Messages("messages", func(s *convo) *[]chat.Message { return &s.Messages })

// The history, written by nodes through the reducer (ids assigned, a
// replacement and a removal), survives every saver and a fresh graph reading
// it back, as another process would.
func TestMessagesSurviveEverySaver(t *testing.T) {
	t.Parallel()
	build := func() *graph.StateGraph[convo] {
		g := graph.New(state.NewSchema[convo](convoMessages))
		g.AddNode("say", func(ctx context.Context, s convo) (state.Update[convo], error) {
			return state.Writes(convoMessages.Set(append(every(), chat.Human("no id")))), nil
		})
		g.AddNode("edit", func(ctx context.Context, s convo) (state.Update[convo], error) {
			return state.Writes(convoMessages.Set([]chat.Message{chat.Remove("s"), chat.AI("a fat cat").WithID("a2"), chat.AI("no id either")})), nil
		})
		g.AddEdge(graph.Start, "say").AddEdge("say", "edit").AddEdge("edit", graph.End)
		return g
	}
	for name, saver := range chattest.Savers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			app, err := build().Compile(graph.WithCheckpointer(saver))
			require.NoError(t, err)
			got, err := app.Invoke(ctx, state.Writes(convoMessages.Set([]chat.Message{chat.Human("start")})), graph.WithThread("t-"+name))
			require.NoError(t, err)
			require.Len(t, got.Messages, 8)
			require.Equal(t, "a fat cat", got.Messages[5].Text(), "replaced in place")
			require.Equal(t, "human", string(got.Messages[1].Role), "the system message is removed")
			for _, m := range got.Messages {
				require.NotEmpty(t, m.ID)
			}

			fresh, err := build().Compile(graph.WithCheckpointer(saver))
			require.NoError(t, err)
			snap, err := fresh.State(ctx, graph.WithThread("t-"+name))
			require.NoError(t, err)
			require.Equal(t, got.Messages, snap.Values.Messages)
			// Each checkpoint of the history decodes, the first with only the input.
			var lens []int
			for s, err := range fresh.History(ctx, graph.WithThread("t-"+name)) {
				require.NoError(t, err)
				lens = append(lens, len(s.Values.Messages))
			}
			require.Equal(t, []int{8, 8, 1, 0}, lens, "edit, say, loop (the input), input (before it)")
		})
	}
}
