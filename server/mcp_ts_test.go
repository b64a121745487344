package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/require"
)

// TestMCPEndpointServesTheOfficialTypeScriptClient drives /mcp with
// @modelcontextprotocol/sdk's Client over its StreamableHTTPClientTransport
// (pinned in mcp/testdata/js/package-lock.json): refused without
// credentials, then the assistants listed with their input schemas, a
// run's final values, a failed run, a refused input and an interrupt
// (mcp/testdata/js/endpoint.mjs).
func TestMCPEndpointServesTheOfficialTypeScriptClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: install Node 20+ and run `npm ci --prefix mcp/testdata/js --no-audit --no-fund` to run this test")
	}
	dir, err := filepath.Abs(filepath.Join("..", "mcp", "testdata", "js"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("@modelcontextprotocol/sdk is not installed: run `npm ci --prefix mcp/testdata/js --no-audit --no-fund` to run this test")
	}
	h := newHarness(t, server.WithMCP(), server.WithAuth(userAuth))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "endpoint.mjs", h.http.URL+server.MCPPath, "ann")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node endpoint.mjs:\n%s", out)
	require.NoError(t, err, "the TypeScript MCP client failed against /mcp")
	require.Contains(t, string(out), "all ok")
}
