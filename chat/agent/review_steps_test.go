package agent_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/tools"
)

// Human review's decisions are steps like the other middleware's: in the
// resumed run's stream and in History, one per reviewed call.
func TestHumanReviewRecordsEachDecisionAsAStep(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Once: true, ToolCalls: []fakechat.ToolCall{
			{ID: "c1", Name: "get_weather", Arguments: `{"city":"Oslo"}`},
			{ID: "c2", Name: "get_weather", Arguments: `{"city":"Brgen"}`},
			{ID: "c3", Name: "get_weather", Arguments: `{"city":"Mars"}`},
		}},
		fakechat.Turn{Once: true, Content: "Oslo and Bergen are sunny."},
	)
	var ran atomic.Int32
	a := agent.New[agent.NoResponse](openAI(t, srv), []tools.Tool{weatherTool(&ran)},
		agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(chattest.Savers(t)["sqlite"]))
	require.NoError(t, err)

	_, err = app.Invoke(context.Background(), a.Input(chat.Human("weather?")), graph.WithThread("rv"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, agent.NodeReview, ie.Interrupts[0].Node)
	assert.Empty(t, historySteps(t, app, "rv"), "no decision yet, no step")

	var streamed []agent.Step

	var final noState
	for ev, err := range app.Stream(context.Background(), state.Update[noState]{}, graph.WithThread("rv"),
		graph.StreamModes(graph.Values, graph.Custom),
		graph.Resume([]toolnode.Decision{toolnode.Approve(), toolnode.Edit(`{"city":"Bergen"}`), toolnode.Reject("no weather on Mars")})) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Values:
			final = ev.State
		case graph.Custom:
			if s, ok := ev.Custom.(agent.Step); ok {
				streamed = append(streamed, s)
			}
		}
	}
	msgID := final.Messages[1].ID
	want := []agent.Step{
		{Middleware: "review", Action: "approved", Detail: `call "c1" (get_weather) of message "` + msgID + `"`, Node: agent.NodeReview},
		{Middleware: "review", Action: "edited", Detail: `call "c2" (get_weather) of message "` + msgID + `"`, Node: agent.NodeReview},
		{Middleware: "review", Action: "rejected", Detail: `call "c3" (get_weather) of message "` + msgID + `": no weather on Mars`, Node: agent.NodeReview},
	}
	assert.Equal(t, want, streamed, "the resumed run streams each decision")
	assert.Equal(t, want, historySteps(t, app, "rv"), "History holds each decision")
	assert.Equal(t, want, final.Steps)
	assert.Equal(t, int32(2), ran.Load(), "the rejected call did not run")
	assert.Equal(t, "Oslo and Bergen are sunny.", final.Messages[len(final.Messages)-1].Text())
}
