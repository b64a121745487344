package server_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/server"
)

// TestMCPEndpointServesTheOfficialTypeScriptClient drives /mcp with
// @modelcontextprotocol/sdk's Client over its StreamableHTTPClientTransport
// (pinned in mcp/testdata/js/package-lock.json): refused without
// credentials, then the assistants listed with their input schemas, a
// run's final values, a failed run, a refused input and an interrupt
// (mcp/testdata/js/endpoint.mjs).
func TestMCPEndpointServesTheOfficialTypeScriptClient(t *testing.T) {
	t.Parallel()
	js := needJS(t, filepath.Join("..", "mcp", "testdata", "js"), "@modelcontextprotocol/sdk")
	h := newHarness(t, server.WithMCP(), server.WithAuth(userAuth))
	js.run(t, "the TypeScript MCP client", "endpoint.mjs", nil, h.http.URL+server.MCPPath, "ann")
}
