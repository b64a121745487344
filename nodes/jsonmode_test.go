package nodes_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func TestTheAgentAsksForJSONModeOverTheOpenAIClient(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	app, c := agentOn(t, srv, nodes.Budget{})
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Contains(t, reqs[0], `"response_format":{"type":"json_object"}`, "the planner")
	require.Contains(t, reqs[1], `"response_format":{"type":"json_object"}`, "the replanner")
	require.NotContains(t, reqs[2], `"response_format"`, "not the responder, who writes prose")
}

// optionsModel answers from replies by marker and records whether each
// call asked for JSON mode.
type optionsModel struct {
	mu      sync.Mutex
	replies map[string]string
	json    map[string]bool // by marker
}

func (m *optionsModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	var text strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for marker, reply := range m.replies {
		if strings.Contains(text.String(), marker) {
			m.json[marker] = o.JSONMode
			return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: reply}}}, nil
		}
	}
	return nil, nil
}

func (m *optionsModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// Any model is asked for JSON mode, not only the client types known to
// honour it: a client that does not know the option ignores it.
func TestTheAgentAsksAnyModelForJSONMode(t *testing.T) {
	t.Parallel()
	m := &optionsModel{json: map[string]bool{}, replies: map[string]string{
		"You are a planner":         deliveryPlanReply,
		"You are revising a plan":   deliveryReplanReply,
		"Answer the user's request": deliveryAnswerReply,
	}}
	app, c := agentWith(t, m)
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.Equal(t, map[string]bool{"You are a planner": true, "You are revising a plan": true, "Answer the user's request": false}, m.json)
}

// A model that refuses JSON mode (an OpenAI-compatible server answering
// 400 to response_format) still works: the refused call is made again at
// once without it, and the model is not asked for JSON mode again.
func TestAModelThatRefusesJSONModeStillWorks(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Marker: `"response_format"`, Status: 400},
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	app, c := agentOn(t, srv, nodes.Budget{})
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Equal(t, deliveryAnswerReply, out.Answer())
	reqs := srv.Requests()
	require.Len(t, reqs, 4, "the refused call, the planner again, the replanner, the responder")
	require.Contains(t, reqs[0], `"response_format"`)
	for _, r := range reqs[1:] {
		require.NotContains(t, r, `"response_format"`, "not asked again")
	}
	require.Equal(t, 4, out.Usage.ModelCalls, "the refused call was made: it counts")
}

// agentWith is agentOn with any model.
func agentWith(t *testing.T, m llms.Model) (*graph.Compiled[nodes.AgentState], *delivery.Case) {
	t.Helper()
	c := delivery.New()
	ts := c.Tools()
	return compileAgent(t, nodes.AgentConfig{Model: m, Tools: ts, Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}}, nil), c
}
