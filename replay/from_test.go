package replay_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
)

// changedLookup is the lookup tool with another output.
type changedLookup struct{}

func (changedLookup) Name() string        { return "lookup" }
func (changedLookup) Description() string { return "looks facts up" }
func (changedLookup) Call(_ context.Context, in string) (string, error) {
	return "another fact about " + strings.ToLower(in), nil
}

// A chat thread of two turns, replayed from the second turn's input
// checkpoint: the first turn is not run again (its calls are not asked
// for), and the second matches. With a tool whose output changed (not
// recorded: it runs), the first divergence is the second turn's tools
// step, not the first turn's.
func TestAReplayFromTheSecondTurnsCheckpoint(t *testing.T) {
	t.Parallel()
	build := func(model llms.Model, tool tools.Tool) *agent.Agent[agent.NoResponse] {
		return agent.New[agent.NoResponse](replay.Model(model), []tools.Tool{tool}, agent.WithPrompt("You are brief."))
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
	var inputs []*graph.Snapshot[agent.State[agent.NoResponse]]
	var toolSteps []int
	for s, err := range app.History(t.Context(), graph.WithThread("chat")) {
		require.NoError(t, err)
		if s.Metadata.Source == checkpoint.SourceInput {
			inputs = append([]*graph.Snapshot[agent.State[agent.NoResponse]]{s}, inputs...)
		}
		if len(s.Metadata.Nodes) == 1 && s.Metadata.Nodes[0] == "tools" {
			toolSteps = append([]int{s.Metadata.Step}, toolSteps...)
		}
	}
	require.Len(t, inputs, 2)
	require.Len(t, toolSteps, 2)
	second := inputs[1].Config.CheckpointID

	rep, err := replay.Run(t.Context(), build(offline{t}, &lookup{}).Graph, saver, "chat", replay.WithFrom(second))
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)

	rep, err = replay.Run(t.Context(), build(offline{t}, changedLookup{}).Graph, saver, "chat", replay.WithFrom(second))
	require.NoError(t, err)
	d := rep.First()
	require.NotNil(t, d, "the changed tool output diverges")
	require.Equal(t, replay.ChangedState, d.Kind)
	require.Equal(t, toolSteps[1], d.Step, "at the second turn's tools step: %v", d)
	require.Contains(t, d.Diff, "+")
	require.Contains(t, d.Diff, "another fact about")

	// From the first turn, the same tool diverges at the first turn's step.
	rep, err = replay.Run(t.Context(), build(offline{t}, changedLookup{}).Graph, saver, "chat", replay.WithFrom(inputs[0].Config.CheckpointID))
	require.NoError(t, err)
	require.NotNil(t, rep.First())
	require.Equal(t, toolSteps[0], rep.First().Step)

	// From the middle of the second turn (the checkpoint before its tools
	// step): the rest of the run, then nothing else.
	var mid string
	for s, err := range app.History(t.Context(), graph.WithThread("chat")) {
		require.NoError(t, err)
		if s.Metadata.Step == toolSteps[1]-1 {
			mid = s.Config.CheckpointID
		}
	}
	require.NotEmpty(t, mid)
	rep, err = replay.Run(t.Context(), build(offline{t}, &lookup{}).Graph, saver, "chat", replay.WithFrom(mid))
	require.NoError(t, err)
	require.Nil(t, rep.First(), "%v", rep.Divergences)
	require.Equal(t, want.Messages, rep.Output.Messages)
	rep, err = replay.Run(t.Context(), build(offline{t}, changedLookup{}).Graph, saver, "chat", replay.WithFrom(mid))
	require.NoError(t, err)
	require.NotNil(t, rep.First())
	require.Equal(t, toolSteps[1], rep.First().Step)

	_, err = replay.Run(t.Context(), build(offline{t}, &lookup{}).Graph, saver, "chat", replay.WithFrom("no-such-checkpoint"))
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	require.ErrorContains(t, err, "no-such-checkpoint")
}
