package history_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

type convo struct{ Messages []chat.Message }

var msgs = chat.Messages("messages", func(s *convo) *[]chat.Message { return &s.Messages })

// long is a system prompt, then turns of human, AI with a tool call, the
// tool's answer, AI reply: ids s, h0, c0, t0, a0, h1, …
func long(turns int) []chat.Message {
	out := []chat.Message{chat.System("be brief").WithID("s")}
	for i := range turns {
		out = append(out,
			chat.Human(fmt.Sprintf("question %d", i)).WithID(fmt.Sprintf("h%d", i)),
			chat.AI("", chat.Call(fmt.Sprint(i), "look", "{}")).WithID(fmt.Sprintf("c%d", i)),
			chat.ToolResult(fmt.Sprint(i), "look", "found").WithID(fmt.Sprintf("t%d", i)),
			chat.AI(fmt.Sprintf("answer %d", i)).WithID(fmt.Sprintf("a%d", i)),
		)
	}
	return out
}

func ids(ms []chat.Message) string {
	var b []string
	for _, m := range ms {
		b = append(b, m.ID)
	}
	return strings.Join(b, " ")
}

func TestTrimKeepsARecentWindowThatStartsCleanly(t *testing.T) {
	t.Parallel()
	one := func(chat.Message) int { return 1 }
	for _, tc := range []struct {
		name string
		w    history.Window
		want string
	}{
		{"no bound keeps all", history.Window{}, "s h0 c0 t0 a0 h1 c1 t1 a1"},
		{"last three", history.Window{MaxMessages: 3}, "c1 t1 a1"},
		{"a tool answer is not left without its call", history.Window{MaxMessages: 2}, "a1"},
		{"system kept and counted", history.Window{MaxMessages: 4, KeepSystem: true}, "s c1 t1 a1"},
		{"by tokens", history.Window{MaxTokens: 4, Count: one}, "h1 c1 t1 a1"},
		{"the tighter bound wins", history.Window{MaxTokens: 5, MaxMessages: 3, Count: one}, "c1 t1 a1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ids(history.Trim(long(2), tc.w)))
		})
	}
	assert.Equal(t, 4+len("answer 1")/4, history.ApproxTokens(chat.AI("answer 1")))
}

func run(t *testing.T, node graph.NodeFunc[convo], in []chat.Message) []chat.Message {
	t.Helper()
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("trim", node)
	g.AddEdge(graph.Start, "trim").AddEdge("trim", graph.End)
	app, err := g.Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set(in)))
	require.NoError(t, err)
	return out.Messages
}

func TestTrimNodeRemovesWhatFallsOutside(t *testing.T) {
	t.Parallel()
	got := run(t, history.TrimNode(msgs, history.Window{MaxMessages: 5, KeepSystem: true}), long(3))
	assert.Equal(t, "s h2 c2 t2 a2", ids(got))
	got = run(t, history.TrimNode(msgs, history.Window{MaxMessages: 50}), long(3))
	assert.Len(t, got, 13, "all fit: nothing removed")
}

// summarizer is a model that summarises by counting what it was given.
type summarizer struct{ prompts []string }

func (m *summarizer) GenerateContent(_ context.Context, in []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	text := in[1].Parts[0].(llms.TextContent).Text
	m.prompts = append(m.prompts, text)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: fmt.Sprintf("%d lines", strings.Count(text, "\n"))}}}, nil
}

func (m *summarizer) Call(context.Context, string, ...llms.CallOption) (string, error) {
	return "", nil
}

func TestSummarizeNodeReplacesTheOldPartWithASummary(t *testing.T) {
	t.Parallel()
	model := &summarizer{}
	node := history.SummarizeNode(msgs, model, history.Summary{Window: history.Window{MaxMessages: 3, KeepSystem: true}})
	got := run(t, node, long(2))
	assert.Equal(t, "s history-summary a1", ids(got), "the kept window may not start on a tool answer")
	require.Len(t, model.prompts, 1)
	assert.Contains(t, model.prompts[0], "human: question 0\nai called look({})\ntool look answered: found\nai: answer 0\nhuman: question 1\nai called look({})\ntool look answered: found\n")
	assert.Equal(t, llms.ChatMessageTypeSystem, got[1].Role)
	assert.True(t, strings.HasPrefix(got[1].Text(), "Summary of the conversation so far:\n"))

	// Summarising again folds in the earlier summary, keeping one.
	more := append(got, long(3)[9:]...)
	got = run(t, node, more)
	require.Len(t, model.prompts, 2)
	assert.Contains(t, model.prompts[1], "Earlier summary:\nSummary of the conversation so far:")
	assert.Equal(t, 1, strings.Count(ids(got), history.SummaryID))
	assert.Equal(t, "s history-summary a2", ids(got))

	// Within the window: no model call, nothing written.
	got = run(t, node, long(0))
	assert.Equal(t, "s", ids(got))
	assert.Len(t, model.prompts, 2)
}
