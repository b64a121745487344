package servegraphs_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, 200, resp.StatusCode, "%v", out)
	return out
}

type msg struct {
	Type       string `json:"type"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"tool_calls"`
}

func messagesOf(t *testing.T, values map[string]any) []msg {
	t.Helper()
	b, err := json.Marshal(values["messages"])
	require.NoError(t, err)
	var out []msg
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// The served chat assistant answers a weather question offline: it calls
// get_weather, then answers; a sum waits for a person's approval of the
// calculate call, then runs it.
func TestServedChatAssistantCallsToolsAndWaitsForReview(t *testing.T) {
	t.Parallel()
	graphs, err := servegraphs.Graphs(memory.New())
	require.NoError(t, err)
	srv, err := server.New(graphs)
	require.NoError(t, err)
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	out := post(t, ts.URL+"/threads", `{}`)
	thread := out["thread_id"].(string)
	out = post(t, ts.URL+"/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":[{"type":"human","content":"What is the weather in Oslo?"}]}}`)
	got := messagesOf(t, out)
	require.Len(t, got, 4)
	assert.Equal(t, []string{"human", "ai", "tool", "ai"}, []string{got[0].Type, got[1].Type, got[2].Type, got[3].Type})
	require.Len(t, got[1].ToolCalls, 1)
	assert.Equal(t, "get_weather", got[1].ToolCalls[0].Name)
	assert.Equal(t, map[string]any{"city": "Oslo"}, got[1].ToolCalls[0].Args)
	assert.Equal(t, "Oslo: sunny, 21°C", got[2].Content)
	assert.Equal(t, "Here is what I found: Oslo: sunny, 21°C.", got[3].Content)

	out = post(t, ts.URL+"/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":[{"role":"user","content":"what is 12 * 7?"}]}}`)
	require.Contains(t, out, "__interrupt__", "calculate waits for review")
	out = post(t, ts.URL+"/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","command":{"resume":[{"action":"approve"}]}}`)
	got = messagesOf(t, out)
	require.Len(t, got, 8)
	assert.Equal(t, "12 * 7 = 84", got[6].Content)
	assert.Equal(t, "Here is what I found: 12 * 7 = 84.", got[7].Content)
}
