package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be the inventory server, as the program
// is for itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == serveArg {
		if err := serveInventory(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTheAgentUsesTheInventoryServersTools(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, run(t.Context(), exe, &out))
	got := out.String()
	t.Log(got)
	require.Contains(t, got, `MCP server "inventory" offers 2 tools:`)
	require.Contains(t, got, "stock — how many of an item are in stock (side effects: false)")
	require.Contains(t, got, "reserve — reserves items from stock (side effects: true)")
	require.Contains(t, got, `"required":["item","quantity"]`)
	require.Contains(t, got, "tool:  5 widget in stock\n")
	require.Contains(t, got, "tool:  reserved 3 widget; 2 left\n")
	require.Contains(t, got, `tool:  Error: mcp: server "inventory": tool "reserve" failed: only 2 widget left, cannot reserve 4`)
	require.Contains(t, got, "ai:    I reserved 3 widgets (reserved 3 widget; 2 left). The next 4 could not be reserved: Error: mcp: server \"inventory\": tool \"reserve\" failed: only 2 widget left, cannot reserve 4\n")
}
