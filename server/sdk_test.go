package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLangGraphJSClient drives the server with LangGraph's own npm client,
// @langchain/langgraph-sdk (pinned in testdata/sdk/package.json): the
// scenario of testdata/sdk/client.mjs, against the embedded SQLite default
// and against PostgreSQL (checkpoints and records).
func TestLangGraphJSClient(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testJSClient(t, newSQLiteHarness) })
	t.Run("postgres", func(t *testing.T) { testJSClient(t, newPostgresHarness) })
}

func testJSClient(t *testing.T, newHarness func(testing.TB) *harness) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: install Node 20+ and run `npm ci --prefix server/testdata/sdk` to run this test")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "sdk"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@langchain", "langgraph-sdk")); err != nil {
		t.Skip("the JS client is not installed: run `npm ci --prefix server/testdata/sdk` to run this test")
	}
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", h.http.URL)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node client.mjs:\n%s", out)
	require.NoError(t, err, "the LangGraph JS client failed against the server")
	require.Contains(t, string(out), "all ok")
}
