package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/internal/pgtest"
)

// TestLangGraphJSClient drives the server with LangGraph's own npm client,
// @langchain/langgraph-sdk (pinned in testdata/sdk/package.json): the
// scenario of testdata/sdk/client.mjs, against the embedded SQLite default,
// against PostgreSQL with runs in the serving process, and against two
// replica processes on one PostgreSQL database whose workers execute the
// runs (the scenario then also streams, joins, cancels and answers
// interrupts across them, and drives each multitask strategy, a cron and
// a webhook).
func TestLangGraphJSClient(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		node, dir := jsClient(t)
		runJSClient(t, node, dir, newSQLiteHarness(t).http.URL)
	})
	t.Run("postgres", func(t *testing.T) {
		node, dir := jsClient(t)
		runJSClient(t, node, dir, newPostgresHarness(t).http.URL)
	})
	t.Run("replicas", func(t *testing.T) {
		node, dir := jsClient(t)
		pgtest.DSN(t)
		schema := pgtest.Schema(t)
		a, b := startReplica(t, schema), startReplica(t, schema)
		hooks := newHookSink(t)
		runJSClient(t, node, dir, a, "STATEGRAPH_REPLICA_B="+b, "STATEGRAPH_HOOKS="+hooks.url)
	})
}

// jsClient returns node and the JS client's folder, or skips without them.
func jsClient(t *testing.T) (node, dir string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: install Node 20+ and run `npm ci --prefix server/testdata/sdk` to run this test")
	}
	dir, err = filepath.Abs(filepath.Join("testdata", "sdk"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@langchain", "langgraph-sdk")); err != nil {
		t.Skip("the JS client is not installed: run `npm ci --prefix server/testdata/sdk` to run this test")
	}
	return node, dir
}

func runJSClient(t *testing.T, node, dir, url string, env ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", url)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node client.mjs:\n%s", out)
	require.NoError(t, err, "the LangGraph JS client failed against the server")
	require.Contains(t, string(out), "all ok")
}
