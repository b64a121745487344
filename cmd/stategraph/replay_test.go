package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/server"
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
	r := onDB(t, db, "replay", "-list", "rec")
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 2, r.stdout)
	assert.Contains(t, out[0], "step 1  ask  model #1")
	assert.Contains(t, out[0], "hello")
	assert.Contains(t, out[0], "echo: hello")
	assert.Contains(t, out[0], "tokens 5+2")
	assert.Contains(t, out[1], `thread "rec": 1 recorded calls`)

	rec := decode[replay.Recording](t, db, "replay", "-list", "rec")
	require.Len(t, rec.Calls, 1)
	assert.Equal(t, replay.KindModel, rec.Calls[0].Kind)

	missing := onDB(t, db, "replay", "-list", "nope")
	assert.NotEqual(t, 0, missing.code)
	assert.Contains(t, missing.stderr, `"nope"`)

	unknown := onDB(t, db, "replay", "rec")
	assert.Equal(t, 1, unknown.code)
	assert.Contains(t, unknown.stderr, "neither chat's nor planexecute's")
}

// servedThreads serves the example graphs on a new SQLite file, chat's
// calls recorded when record, and runs on it: a weather question, then a
// sum that waits for a person's review, approved. It returns the file
// and the thread.
func servedThreads(t *testing.T, record bool) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "served.db")
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	defer saver.Close()
	var opts []servegraphs.Option
	if record {
		opts = append(opts, servegraphs.Recorded())
	}
	graphs, err := servegraphs.Graphs(saver, opts...)
	require.NoError(t, err)
	srv, err := server.New(graphs)
	require.NoError(t, err)
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(url, body string) map[string]any {
		resp, err := http.Post(ts.URL+url, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, 200, resp.StatusCode, "%v", out)
		return out
	}
	thread := post("/threads", `{}`)["thread_id"].(string)
	post("/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":[{"type":"human","content":"What is the weather in Oslo?"}]}}`)
	out := post("/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":[{"type":"human","content":"what is 12 * 7?"}]}}`)
	require.Contains(t, out, "__interrupt__", "calculate waits for review")
	post("/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","command":{"resume":[{"action":"approve"}]}}`)
	return path, thread
}

// A chat thread served with -record re-runs offline with no divergence,
// whole or from its second turn; one served without it diverges at its
// first model call, which the recording does not have (exit 1).
func TestReplayReRunsARecordedChatThread(t *testing.T) {
	t.Parallel()
	db, thread := servedThreads(t, true)
	r := onDB(t, db, "replay", thread)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Equal(t, fmt.Sprintf("thread %q (chat): no divergence\n", thread), r.stdout)
	r = onDB(t, db, "replay", "-graph", "chat", thread)
	require.Equal(t, 0, r.code, r.stderr)

	list := onDB(t, db, "replay", "-list", thread)
	require.Equal(t, 0, list.code, list.stderr)
	assert.Contains(t, list.stdout, "tool get_weather")
	assert.Contains(t, list.stdout, "tool calculate")

	var second string
	for _, h := range decode[[]struct {
		Checkpoint string `json:"checkpoint"`
		Source     string `json:"source"`
	}](t, db, "history", thread) {
		if h.Source == "input" && second == "" {
			second = h.Checkpoint // newest first: the second turn's input
		}
	}
	require.NotEmpty(t, second)
	r = onDB(t, db, "replay", "-from", second, thread)
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "no divergence")

	bad := onDB(t, db, "replay", "-graph", "essay", thread)
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, `"essay"`)

	plain, thread := servedThreads(t, false)
	r = onDB(t, plain, "replay", thread)
	require.Equal(t, 1, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "missing_call at step 1 (agent): model call 1")
	assert.Contains(t, r.stderr, "diverged")
}
