package replay_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

// A chat agent whose tool calls wait for a person (HumanReview): each turn
// stops at the review, is approved, and continues. The replay runs the
// thread run by run, the recorded approvals given as the resumes, and
// leaves the same history with no model or tool called.
func TestAReviewedChatAgentReplaysItsResumes(t *testing.T) {
	t.Parallel()
	build := func(model llms.Model, tool tools.Tool) *agent.Agent[agent.NoResponse] {
		return agent.New[agent.NoResponse](replay.Model(model), []tools.Tool{replay.Tool(tool)}, agent.WithPrompt("You are brief."),
			agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
	}
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "review.db"))
	require.NoError(t, err)
	defer saver.Close()
	live := &lookup{}
	a := build(&chatModel{}, live)
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	thread := graph.WithThread("review")
	var want agent.State[agent.NoResponse]
	for _, q := range []string{"Tell me about otters.", "And again?"} {
		_, err = app.Invoke(t.Context(), a.Input(chat.Human(q)), thread)
		require.ErrorIs(t, err, graph.ErrInterrupted, "the call waits for review")
		want, err = app.Invoke(t.Context(), state.Update[agent.State[agent.NoResponse]]{}, thread,
			graph.Resume([]toolnode.Decision{toolnode.Approve()}))
		require.NoError(t, err)
	}
	require.Len(t, want.Messages, 8, "two turns of human, tool call, tool result, answer")
	require.EqualValues(t, 2, live.calls.Load())

	rep, err := replay.Run(t.Context(), build(offline{t}, offlineTool{t}).Graph, saver, "review")
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)
	require.Len(t, rep.Recording.Calls, 6, "four model calls, two tool calls")

	// From the checkpoint where the second turn waited for review: the
	// recorded approval resumes it.
	var stopped []string
	for s, err := range app.History(t.Context(), thread) {
		require.NoError(t, err)
		if len(s.Interrupts) > 0 {
			stopped = append(stopped, s.Config.CheckpointID)
		}
	}
	require.Len(t, stopped, 2)
	rep, err = replay.Run(t.Context(), build(offline{t}, offlineTool{t}).Graph, saver, "review", replay.WithFrom(stopped[0]))
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)
}

// A thread that ends at an interrupt nobody answered yet replays to the
// same interrupt: the replay's last run stops there, which is not an
// error, and no step diverges.
func TestAThreadWaitingAtAnInterruptReplays(t *testing.T) {
	t.Parallel()
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "review.db"))
	require.NoError(t, err)
	defer saver.Close()
	build := func(model llms.Model, tool tools.Tool) *agent.Agent[agent.NoResponse] {
		return agent.New[agent.NoResponse](replay.Model(model), []tools.Tool{replay.Tool(tool)},
			agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
	}
	a := build(&chatModel{}, &lookup{})
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	want, err := app.Invoke(t.Context(), a.Input(chat.Human("Tell me about otters.")), graph.WithThread("review"))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	rep, err := replay.Run(t.Context(), build(offline{t}, offlineTool{t}).Graph, saver, "review")
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)
	require.Len(t, rep.Output.Messages, 2, "the question and the call waiting for review")
}
