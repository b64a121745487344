package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseServeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		db      string
		want    serveConfig
		wantErr string
	}{
		{"defaults", nil, "", serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "127.0.0.1:2024"}, ""},
		{"global -db", nil, "x/run.db", serveConfig{db: "x/run.db", store: "x/run.server.db", addr: "127.0.0.1:2024"}, ""},
		{"own flags", []string{"-db", "a.db", "-store", "s.db", "-addr", "localhost:9"}, "", serveConfig{db: "a.db", store: "s.db", addr: "localhost:9"}, ""},
		{"remote refused", []string{"-addr", "0.0.0.0:2024"}, "", serveConfig{}, "not a loopback address"},
		{"remote allowed", []string{"-addr", "0.0.0.0:2024", "-allow-remote"}, "", serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "0.0.0.0:2024", allowRemote: true}, ""},
		{"bad addr", []string{"-addr", "nope"}, "", serveConfig{}, "-addr"},
		{"argument", []string{"extra"}, "", serveConfig{}, `unexpected argument "extra"`},
		{"postgres", []string{"-dsn", "postgres://x", "-schema", "s"}, "", serveConfig{dsn: "postgres://x", schema: "s", addr: "127.0.0.1:2024", workers: defaultServeWorkers}, ""},
		{"api only", []string{"-dsn", "postgres://x", "-workers", "0"}, "", serveConfig{dsn: "postgres://x", addr: "127.0.0.1:2024"}, ""},
		{"negative workers", []string{"-dsn", "postgres://x", "-workers", "-1"}, "", serveConfig{}, "-workers -1"},
		{"workers without dsn", []string{"-workers", "2"}, "", serveConfig{}, "-workers needs -dsn"},
		{"both", []string{"-dsn", "postgres://x"}, "a.db", serveConfig{}, "not both"},
		{"schema without dsn", []string{"-schema", "s"}, "", serveConfig{}, "-schema needs -dsn"},
		{"mcp off", []string{"-mcp=false"}, "", serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "127.0.0.1:2024", noMCP: true}, ""},
		{"a2a off", []string{"-a2a=false"}, "", serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "127.0.0.1:2024", noA2A: true}, ""},
	}
	for _, tt := range tests {
		got, err := parseServe(tt.args, serveConfig{db: tt.db})
		if tt.wantErr != "" {
			require.ErrorContains(t, err, tt.wantErr, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
	}
}

func TestServeShowsUsage(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	assert.Equal(t, exitUsage, run(context.Background(), []string{"-db", "a.db", "serve", "-dsn", "postgres://x"}, &out, &errb, func(string) string { return "" }))
	assert.Contains(t, errb.String(), "not both")
	out.Reset()
	assert.Equal(t, exitOK, run(context.Background(), []string{"serve", "-h"}, &out, &errb, func(string) string { return "" }))
	assert.Contains(t, out.String(), "usage: stategraph serve")
	out.Reset()
	assert.Equal(t, exitOK, run(context.Background(), []string{"help"}, &out, &errb, func(string) string { return "" }))
	assert.Contains(t, out.String(), "serve [-addr HOST:PORT]")
}

func TestServeRunsTheExampleGraphsOnAFreshDatabase(t *testing.T) {
	dir := t.TempDir()
	testServe(t, serveConfig{db: filepath.Join(dir, "sg.db"), store: filepath.Join(dir, "sg.server.db")})
}

func TestServeRunsTheExampleGraphsOnPostgres(t *testing.T) {
	testServe(t, serveConfig{dsn: pgtest.DSN(t), schema: pgtest.Schema(t), workers: 2})
}

func testServe(t *testing.T, c serveConfig) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	c.addr = ln.Addr().String()
	go func() { done <- serve(ctx, c, ln, &out) }()
	base := "http://" + ln.Addr().String()

	post := func(path string, body any) map[string]any {
		t.Helper()
		data, err := json.Marshal(body)
		require.NoError(t, err)
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(data))
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, "%s: %s", path, raw)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m), "%s", raw)
		return m
	}

	post("/threads", map[string]any{"thread_id": "order"})
	res := post("/threads/order/runs/wait", map[string]any{"assistant_id": "planexecute", "input": servegraphs.DeliveryInput(),
		"config": map[string]any{"recursion_limit": 50}})
	require.NotContains(t, res, "__error__")
	answer, _ := res["response"].(map[string]any)
	assert.Contains(t, answer["text"], "Recommendation: switch to warehouse B", "the delivery scenario's answer")

	post("/threads", map[string]any{"thread_id": "ticket"})
	res = post("/threads/ticket/runs/wait", map[string]any{"assistant_id": "support", "input": map[string]any{"request": "a damaged parcel"}})
	require.Len(t, res["__interrupt__"], 1)
	res = post("/threads/ticket/runs/wait", map[string]any{"assistant_id": "support", "command": map[string]any{"resume": "yes"}})
	assert.Equal(t, true, res["approved"])

	res = post("/runs/wait", map[string]any{"assistant_id": "essay", "input": map[string]any{"topic": "Go"}})
	assert.Equal(t, []any{"Go, draft 1", "Go, draft 2", "Go, draft 3"}, res["drafts"])

	res = post("/store/items/search", map[string]any{"namespace_prefix": []string{"notes"}})
	assert.Equal(t, []any{}, res["items"], "the store API is served")

	// MCP is on by default: the graphs are tools at /mcp.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.ElementsMatch(t, []string{"planexecute", "support", "essay", "chat"}, names)
	called, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "essay", Arguments: map[string]any{"topic": "MCP"}})
	require.NoError(t, err)
	assert.False(t, called.IsError, "%v", called.Content)
	assert.Contains(t, called.Content[0].(*sdk.TextContent).Text, `"MCP, draft 3"`)
	require.NoError(t, cs.Close())

	// A2A is on by default: each graph is an agent at /a2a/{assistant_id}.
	cardResp, err := http.Get(base + "/.well-known/agent-card.json?assistant_id=essay")
	require.NoError(t, err)
	var card struct{ Name, URL string }
	require.NoError(t, json.NewDecoder(cardResp.Body).Decode(&card))
	cardResp.Body.Close()
	assert.Equal(t, "essay", card.Name)
	sent := post(strings.TrimPrefix(card.URL, base), map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
		"message": map[string]any{"kind": "message", "messageId": "m1", "role": "user", "parts": []any{map[string]any{"kind": "data", "data": map[string]any{"topic": "A2A"}}}}}})
	result, _ := sent["result"].(map[string]any)
	require.NotNil(t, result, "%v", sent)
	assert.Equal(t, "completed", result["status"].(map[string]any)["state"])
	assert.Contains(t, fmt.Sprint(result["artifacts"]), "A2A, draft 3")

	cancel()
	require.NoError(t, <-done)
	assert.True(t, strings.HasPrefix(out.String(), "stategraph serve: http://127.0.0.1:"), out.String())
}
