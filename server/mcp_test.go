package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// userAuth authenticates by X-User, refusing a request without one.
func userAuth(r *http.Request) (string, error) {
	if u := r.Header.Get("X-User"); u != "" {
		return u, nil
	}
	return "", errors.New("no X-User header")
}

// userTransport sends X-User: user with each request.
type userTransport struct{ user string }

func (u userTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if u.user != "" {
		r.Header.Set("X-User", u.user)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the Go SDK's client to the harness's /mcp as user.
func (h *harness) mcpSession(t *testing.T, user string) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
		Endpoint:   h.http.URL + server.MCPPath,
		HTTPClient: &http.Client{Transport: userTransport{user}},
	}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func resultText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	return res.Content[0].(*sdk.TextContent).Text
}

func TestMCPEndpointListsAssistantsAsToolsForTheGoSDK(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithMCP())
	cs, err := h.mcpSession(t, "")
	require.NoError(t, err)
	res, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	require.Len(t, byName, 3)
	echo := byName["echo"]
	require.NotNil(t, echo)
	assert.Contains(t, echo.Description, `assistant "echo"`)
	// The input schema is the graph's, as GET /assistants/{id}/schemas
	// gives it.
	_, body := h.do("GET", "/assistants/echo/schemas", nil)
	want := decode[map[string]json.RawMessage](t, body)["input_schema"]
	got, err := json.Marshal(echo.InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestMCPEndpointRunsAnAssistantOnCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithMCP())
	cs, err := h.mcpSession(t, "")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		isError    bool
		want       string
	}{
		{"final values", "echo", map[string]any{"input": "hi"}, false, `{"input":"hi","replies":["echo: hi"]}`},
		{"a failed run", "echo", map[string]any{"input": "fail"}, true, `assistant "echo": the run failed: `},
		{"an input the graph refuses", "echo", map[string]any{"nope": 1}, true, `field "nope"`},
		{"an interrupt", "review", map[string]any{"topic": "go"}, true, `assistant "review" stopped at an interrupt`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			require.NoError(t, err)
			assert.Equal(t, tc.isError, res.IsError)
			text := resultText(t, res)
			if tc.isError {
				assert.Contains(t, text, tc.want)
				return
			}
			assert.JSONEq(t, tc.want, text)
			sc, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(sc))
		})
	}
	// The runs were stateless: they left no thread.
	_, body := h.do("POST", "/threads/search", map[string]any{})
	assert.JSONEq(t, "[]", string(body))
}

func TestMCPEndpointRunsAsTheAuthenticatedUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithMCP(), server.WithAuth(userAuth))
	_, err := h.mcpSession(t, "")
	require.Error(t, err, "no credentials, no MCP")

	cs, err := h.mcpSession(t, "ann")
	require.NoError(t, err)
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "gate", Arguments: map[string]any{}})
		done <- answer{res, err}
	}()
	release := <-h.gates.ch // the run waits in its node: whose is it?
	code, body := h.as("ann", "POST", "/threads/search", map[string]any{})
	require.Equal(t, 200, code)
	threads := decode[[]map[string]any](t, body)
	require.Len(t, threads, 1)
	assert.Equal(t, "ann", threads[0]["metadata"].(map[string]any)["owner"])
	_, body = h.as("bob", "POST", "/threads/search", map[string]any{})
	assert.JSONEq(t, "[]", string(body))
	close(release)

	a := <-done
	require.NoError(t, a.err)
	assert.False(t, a.res.IsError)
	assert.JSONEq(t, `{"steps":["first","waited"]}`, resultText(t, a.res))
}

func TestMCPEndpointIsOffUnlessAsked(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code, _ := h.do("POST", server.MCPPath, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	assert.Equal(t, http.StatusNotFound, code)
}

// Wait is the state of a graph whose node waits for its run to be
// cancelled.
type Wait struct {
	Note string
}

var waitNote = state.Value("note", func(w *Wait) *string { return &w.Note })

func TestMCPCallCancelledByTheClientCancelsItsRun(t *testing.T) {
	t.Parallel()
	started, cancelled := make(chan struct{}), make(chan struct{})
	app, err := graph.New(state.NewSchema(waitNote)).
		AddNode("wait", func(ctx context.Context, w Wait) (state.Update[Wait], error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return state.Update[Wait]{}, ctx.Err()
		}).
		AddEdge(graph.Start, "wait").
		AddEdge("wait", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("waiter", app)}, server.WithMCP())
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer func() {
		hs.Close()
		require.NoError(t, srv.Close())
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL + server.MCPPath}, nil)
	require.NoError(t, err)
	defer cs.Close()

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "waiter", Arguments: map[string]any{"note": "x"}})
		done <- err
	}()
	<-started
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	<-cancelled // the run's node saw its context end
}

func TestMCPEndpointOnAnAPIOnlyReplicaRunsOnTheWorkers(t *testing.T) {
	t.Parallel()
	rs := newReplicasWith(t, []int{0, 2}, func(int) []server.Option { return []server.Option{server.WithMCP()} })
	cs, err := rs[0].mcpSession(t, "")
	require.NoError(t, err)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"input": "over river"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	assert.JSONEq(t, `{"input":"over river","replies":["echo: over river"]}`, resultText(t, res))
}
