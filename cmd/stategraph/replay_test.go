package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

type replayState struct{ Answer string }

var replayAnswer = state.Value("answer", func(s *replayState) *string { return &s.Answer })

// echoModel answers every prompt with "echo: " and the prompt.
type echoModel struct{}

func (echoModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	text := msgs[len(msgs)-1].Parts[0].(llms.TextContent).Text
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "echo: " + text, GenerationInfo: map[string]any{"PromptTokens": 5, "CompletionTokens": 2}}}}, nil
}

func (m echoModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// recordedDB returns a SQLite file with thread "rec", whose node "ask"
// made one recorded model call.
func recordedDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.db")
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	defer saver.Close()
	model := replay.Model(echoModel{})
	ask := func(ctx context.Context, s replayState) (state.Update[replayState], error) {
		out, err := llms.GenerateFromSinglePrompt(ctx, model, "hello")
		return state.Writes(replayAnswer.Set(out)), err
	}
	app, err := graph.New(state.NewSchema(replayAnswer)).AddNode("ask", ask).AddEdge(graph.Start, "ask").
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Invoke(t.Context(), state.Writes(replayAnswer.Set("")), graph.WithThread("rec"))
	require.NoError(t, err)
	return path
}

func TestReplayListsTheRecordedCalls(t *testing.T) {
	t.Parallel()
	db := recordedDB(t)
	r := onDB(t, db, "replay", "rec")
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 2, r.stdout)
	assert.Contains(t, out[0], "step 1  ask  model #1")
	assert.Contains(t, out[0], "hello")
	assert.Contains(t, out[0], "echo: hello")
	assert.Contains(t, out[0], "tokens 5+2")
	assert.Contains(t, out[1], `thread "rec": 1 recorded calls`)

	rec := decode[replay.Recording](t, db, "replay", "rec")
	require.Len(t, rec.Calls, 1)
	assert.Equal(t, replay.KindModel, rec.Calls[0].Kind)

	missing := onDB(t, db, "replay", "nope")
	assert.NotEqual(t, 0, missing.code)
	assert.Contains(t, missing.stderr, `"nope"`)
}
