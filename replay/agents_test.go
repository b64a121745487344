package replay_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/replay"
)

// chatModel replies with a tool call, then with the answer.
type chatModel struct{ n int }

func (m *chatModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.n++
	if m.n%2 == 1 {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{{
			ID: fmt.Sprintf("call-%d", m.n), Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: `{"__arg1":"otters"}`},
		}}}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Otters hold hands while they sleep."}}}, nil
}

func (m *chatModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func TestAChatAgentReplaysOfflineWithAnIdenticalHistory(t *testing.T) {
	t.Parallel()
	build := func(model llms.Model, tool tools.Tool) *agent.Agent[agent.NoResponse] {
		return agent.New[agent.NoResponse](replay.Model(model), []tools.Tool{replay.Tool(tool)}, agent.WithPrompt("You are brief."))
	}
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "chat.db"))
	require.NoError(t, err)
	defer saver.Close()
	a := build(&chatModel{}, &lookup{})
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	var want agent.State[agent.NoResponse]
	for _, q := range []string{"Tell me about otters.", "And again?"} {
		want, err = app.Invoke(t.Context(), a.Input(chat.Human(q)), graph.WithThread("chat"))
		require.NoError(t, err)
	}
	require.Len(t, want.Messages, 8, "two turns of human, tool call, tool result, answer")

	offlineAgent := build(offline{t}, offlineTool{t})
	rep, err := replay.Run(t.Context(), offlineAgent.Graph, saver, "chat")
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)
	require.Len(t, rep.Recording.Calls, 6, "four model calls, two tool calls")
}

func TestThePlanAndExecuteAgentReplaysOfflineWithAnIdenticalHistory(t *testing.T) {
	t.Parallel()
	build := func(c *delivery.Case, wrap bool) *nodes.Agent {
		cfg := c.AgentConfig()
		for i, tl := range cfg.Tools {
			if wrap {
				cfg.Tools[i] = replay.Tool(tl)
			}
		}
		a, err := nodes.NewAgent(cfg)
		require.NoError(t, err)
		return a
	}
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "pe.db"))
	require.NoError(t, err)
	defer saver.Close()
	live := delivery.New()
	app, err := build(live, true).Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	want, err := app.Invoke(t.Context(), nodes.NewInput(live.Goal(), live.Constraints()...), graph.WithThread("pe"))
	require.NoError(t, err)

	again := delivery.New()
	rep, err := replay.Run(t.Context(), build(again, true).Graph(), saver, "pe", replay.WithNormalize(normalizeAgent))
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	ran, recorded := 0, 0
	for _, tl := range again.Tools() {
		ran += again.Calls(tl.Name())
		recorded += live.Calls(tl.Name())
	}
	require.Zero(t, ran, "no tool ran in the replay")
	normalizeAgent(&want)
	got := rep.Output
	normalizeAgent(&got)
	require.Equal(t, want.Answer(), got.Answer())
	require.Len(t, rep.Recording.Calls, recorded, "every tool call of the recorded run")
	require.Positive(t, recorded)
}

// normalizeAgent clears the wall-clock times and durations of a
// plan-and-execute state.
func normalizeAgent(s *nodes.AgentState) {
	s.Usage.Wall, s.Usage.Start = 0, time.Time{}
	for i := range s.PastSteps {
		s.PastSteps[i].Start, s.PastSteps[i].End = time.Time{}, time.Time{}
	}
	for i := range s.Audit {
		s.Audit[i].Start, s.Audit[i].End, s.Audit[i].Duration = time.Time{}, time.Time{}, 0
	}
}
