package nodes_test

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestTheAgentStreamsTheTokensOfItsModelCalls(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	app, c := agentOn(t, srv, nodes.Budget{MaxModelCalls: 10}, nodes.WithTokenStreaming())
	chunks := map[string][]string{} // by node
	var calls []nodes.ModelCall
	var final nodes.AgentState
	for ev, err := range app.Stream(t.Context(), nodes.InputFor(c.Request()), graph.StreamModes(graph.Messages, graph.Custom, graph.Values)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Messages:
			chunks[ev.Node] = append(chunks[ev.Node], string(ev.Chunk))
		case graph.Custom:
			if mc, ok := ev.Custom.(nodes.ModelCall); ok {
				require.Equal(t, ev.Node, mc.Node, "a node's own call")
				calls = append(calls, mc)
			}
		case graph.Values:
			final = ev.State
		}
	}
	require.Equal(t, []nodes.ModelCall{{Node: nodes.NodePlanner, Attempt: 1}, {Node: nodes.NodeReplan, Attempt: 1}, {Node: nodes.NodeRespond, Attempt: 1}}, calls)
	require.Equal(t, fakechat.Chunks(deliveryAnswerReply), chunks[nodes.NodeRespond], "the answer, as it arrived")
	require.Equal(t, deliveryPlanReply, strings.Join(chunks[nodes.NodePlanner], ""))
	require.Equal(t, deliveryAnswerReply, final.Answer())
	require.Equal(t, 360, final.Usage.TotalTokens, "streamed calls still report their tokens")
	for _, r := range srv.Requests() {
		require.Contains(t, r, `"stream":true`)
	}
}

func TestTheAgentDoesNotStreamUnlessAsked(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	app, c := agentOn(t, srv, nodes.Budget{})
	_, err := app.Invoke(t.Context(), nodes.InputFor(c.Request()))
	require.NoError(t, err)
	for _, r := range srv.Requests() {
		require.NotContains(t, r, `"stream":true`)
	}
}

func TestAReActStepsModelCallsAreTaggedWithItsPlanStep(t *testing.T) {
	t.Parallel()
	c := delivery.New()
	m := &toolCallingModel{replies: []*llms.ContentChoice{
		askTool("c1", delivery.ToolStockCheck, `{"warehouse":"B","sku":"SKU-01"}`),
		{Content: "B has 4 units."},
	}}
	app := compileAgent(t, nodes.AgentConfig{
		Planner: onePlan(plan.Step{ID: "research", Description: "Can warehouse B ship SKU-01?"}), Tools: c.Tools(),
	}, nil, nodes.WithReAct(&nodes.ReActExecutor{Model: m}, nil), nodes.WithTokenStreaming())
	var calls []nodes.ModelCall
	for ev, err := range app.Stream(t.Context(), nodes.NewInput("can B ship it?"), graph.StreamModes(graph.Custom)) {
		require.NoError(t, err)
		if mc, ok := ev.Custom.(nodes.ModelCall); ok {
			calls = append(calls, mc)
		}
	}
	require.Equal(t, []nodes.ModelCall{
		{Node: nodes.NodeExecute, StepID: "research", Attempt: 1},
		{Node: nodes.NodeExecute, StepID: "research", Attempt: 1},
	}, calls, "two model calls of the loop, each its own first attempt")
}
