package agent_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// support is a state of the user's own: the agent's fields and more.
type support struct {
	Messages []chat.Message
	Calls    int
	Answer   Forecast
	Ticket   string
}

var (
	supportMessages = chat.Messages("messages", func(s *support) *[]chat.Message { return &s.Messages })
	supportCalls    = state.Sum("calls", func(s *support) *int { return &s.Calls })
	supportAnswer   = state.Value("answer", func(s *support) *Forecast { return &s.Answer })
	supportTicket   = state.Value("ticket", func(s *support) *string { return &s.Ticket })
)

// Build runs the agent over a state of the user's, and the graph takes
// more nodes: here one that files a ticket after the answer.
func TestBuildRunsOverTheUsersStateAndExtends(t *testing.T) {
	t.Parallel()
	model := &scripted{replies: []llms.ContentChoice{
		{Content: "Rain in Bergen."},
		{ToolCalls: []llms.ToolCall{chat.Call("r", agent.RespondTool, `{"city":"Bergen","celsius":9,"summary":"rain"}`)}},
	}}
	schema := state.NewSchema(supportMessages, supportCalls, supportAnswer, supportTicket)
	g := agent.Build(schema, agent.Keys[support, Forecast]{Messages: supportMessages, ModelCalls: supportCalls, Response: supportAnswer}, model, nil)
	g.AddNode("file", func(_ context.Context, s support) (state.Update[support], error) {
		return state.Writes(supportTicket.Set("ticket for " + s.Answer.City)), nil
	})
	app, err := g.AddEdge(agent.NodeRespond, "file").AddEdge("file", graph.End).Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), state.Writes(supportMessages.Set([]chat.Message{chat.Human("Bergen?")})))
	require.NoError(t, err)
	assert.Equal(t, "ticket for Bergen", out.Ticket)
	assert.Equal(t, 2, out.Calls)
	assert.Contains(t, app.Mermaid(), "agent -.-> respond;")
	assert.Contains(t, app.Mermaid(), "respond --> file;")
}

func TestBuildWithoutACountOrAnAnswer(t *testing.T) {
	t.Parallel()
	model := &scripted{replies: []llms.ContentChoice{{Content: "hi"}}}
	schema := state.NewSchema[support](supportMessages)
	app, err := agent.Build(schema, agent.Keys[support, agent.NoResponse]{Messages: supportMessages}, model, nil).Compile()
	require.NoError(t, err)
	out, err := app.Invoke(context.Background(), state.Writes(supportMessages.Set([]chat.Message{chat.Human("hello")})))
	require.NoError(t, err)
	assert.Equal(t, "hi", out.Messages[1].Text())
	assert.NotContains(t, app.Mermaid(), "respond")
	assert.Panics(t, func() { agent.Build(schema, agent.Keys[support, agent.NoResponse]{}, model, nil) })
}
