package mcp_test

import (
	"testing"

	"github.com/stategraph/stategraph/mcp"
	"github.com/stretchr/testify/require"
)

// BenchmarkToolCall is one call of a Go MCP server's tool through a
// *mcp.Tool: the input check, the SDK's JSON-RPC round trip over the
// in-memory transport, and the result's text. It is what MCP adds to a
// tool call, without a process or a network.
func BenchmarkToolCall(b *testing.B) {
	c, err := mcp.Connect(b.Context(), inMemory(b, calcServer()))
	require.NoError(b, err)
	defer c.Close()
	add := toolNamed(b, c.Tools(), "add")
	b.ReportAllocs()
	for b.Loop() {
		out, err := add.Call(b.Context(), `{"a":2,"b":40}`)
		if err != nil || out != "42" {
			b.Fatal(out, err)
		}
	}
}
