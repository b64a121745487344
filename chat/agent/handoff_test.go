package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// desk is the state two agents share: they are built over it with Build,
// and run as subgraphs of a graph over it.
type desk struct {
	Messages   []chat.Message
	ModelCalls int
}

var (
	deskMessages = chat.Messages("messages", func(s *desk) *[]chat.Message { return &s.Messages })
	deskCalls    = state.Sum("model_calls", func(s *desk) *int { return &s.ModelCalls })
	deskSchema   = state.NewSchema[desk](deskMessages, deskCalls)
	deskKeys     = agent.Keys[desk, agent.NoResponse]{Messages: deskMessages, ModelCalls: deskCalls}
)

// twoAgents is START → triage, which may hand the conversation to billing.
func twoAgents(t *testing.T, model llms.Model, saver checkpoint.Saver) *graph.Compiled[desk] {
	t.Helper()
	triage, err := agent.Build(deskSchema, deskKeys, model, []tools.Tool{agent.HandoffTo("billing", deskMessages)},
		agent.WithPrompt("You are triage.")).Compile()
	require.NoError(t, err)
	billing, err := agent.Build(deskSchema, deskKeys, model, nil, agent.WithPrompt("You are billing.")).Compile()
	require.NoError(t, err)
	app, err := graph.New(deskSchema).
		AddSubgraph("triage", triage, graph.WithDestinations("billing")).
		AddSubgraph("billing", billing).
		AddEdge(graph.Start, "triage").
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

func TestHandoffToolSendsTheConversationToTheOtherAgent(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "You are triage.", ToolCalls: []fakechat.ToolCall{{ID: "call_h", Name: "transfer_to_billing", Arguments: `{}`}}},
		fakechat.Turn{Marker: "You are billing.", Content: "Your refund is on its way."},
	)
	app := twoAgents(t, openAI(t, srv), sqliteSaver(t))
	var nodes []string
	var out desk
	for ev, err := range app.Stream(context.Background(), state.Writes(deskMessages.Set([]chat.Message{chat.Human("I want a refund")})),
		graph.WithThread("d"), graph.StreamModes(graph.Updates, graph.Values)) {
		require.NoError(t, err)
		if ev.Mode == graph.Updates {
			nodes = append(nodes, ev.Node)
		} else {
			out = ev.State
		}
	}
	assert.Equal(t, []string{"triage", "billing"}, nodes)
	require.Len(t, out.Messages, 4)
	assert.Equal(t, "I want a refund", out.Messages[0].Text())
	assert.Equal(t, "transfer_to_billing", out.Messages[1].ToolCalls()[0].FunctionCall.Name)
	assert.Equal(t, "Transferred to billing.", mustResponse(t, out.Messages[2]))
	assert.Equal(t, "Your refund is on its way.", out.Messages[3].Text())

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[0], `"transfer_to_billing"`, "triage is offered the handoff tool")
	assert.Contains(t, reqs[1], "You are billing.")
	assert.Contains(t, reqs[1], "Transferred to billing.", "billing sees the conversation so far")
}

// A sub-agent called as a tool by a supervisor: the supervisor's history
// holds only the task and the answer; the sub-agent's own conversation is
// in a namespace of its own.
func TestSupervisorCallsASubAgentAsATool(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "You are the researcher.", Content: "Oslo has about 700,000 people."},
		fakechat.Turn{Marker: "You are the supervisor.", Once: true, ToolCalls: []fakechat.ToolCall{{ID: "call_r", Name: "researcher", Arguments: `{"task":"How many people live in Oslo?"}`}}},
		fakechat.Turn{Marker: "You are the supervisor.", Once: true, Content: "About 700,000."},
	)
	model := openAI(t, srv)
	researcher := agent.New[agent.NoResponse](model, nil, agent.WithPrompt("You are the researcher."))
	sup := agent.New[agent.NoResponse](model, []tools.Tool{researcher.AsTool("researcher", "Finds facts.")}, agent.WithPrompt("You are the supervisor."))
	app, err := sup.Graph.Compile(graph.WithCheckpointer(sqliteSaver(t)))
	require.NoError(t, err)

	var out noState
	subs := map[string][]chat.Message{}
	for ev, err := range app.Stream(context.Background(), sup.Input(chat.Human("Oslo's population?")), graph.WithThread("s"),
		graph.StreamModes(graph.Values), graph.WithSubgraphs()) {
		require.NoError(t, err)
		if ev.Namespace == "" {
			out = ev.State
		} else {
			subs[ev.Namespace] = ev.State.Messages
		}
	}
	require.Len(t, out.Messages, 4)
	assert.Equal(t, "Oslo has about 700,000 people.", mustResponse(t, out.Messages[2]))
	assert.Equal(t, "About 700,000.", out.Messages[3].Text())
	require.Len(t, subs, 1)
	for ns, msgs := range subs {
		assert.True(t, strings.HasPrefix(ns, agent.NodeTools+":"), ns)
		require.Len(t, msgs, 2)
		assert.Equal(t, "How many people live in Oslo?", msgs[0].Text())
		assert.Equal(t, "Oslo has about 700,000 people.", msgs[1].Text())
	}
	for _, m := range out.Messages {
		assert.NotEqual(t, "How many people live in Oslo?", m.Text(), "the task is the tool call's argument, not a message of the supervisor")
	}
	assert.Len(t, srv.Requests(), 3)
}

// A handoff from an agent that is not inside a graph over the handoff's
// type fails with an error naming the type.
func TestHandoffOutsideAParentGraphFails(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t, fakechat.Turn{ToolCalls: []fakechat.ToolCall{{ID: "call_h", Name: "transfer_to_billing", Arguments: `{}`}}})
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{agent.HandoffTo("billing", deskMessages)})
	app, err := a.Graph.Compile()
	require.NoError(t, err)
	_, err = app.Invoke(context.Background(), a.Input(chat.Human("hi")))
	require.Error(t, err)
	assert.True(t, graph.IsHandoff(err))
	assert.Contains(t, err.Error(), "agent_test.desk")
}
