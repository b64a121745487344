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

// TestA2AEndpointServesTheOfficialJSClient drives /a2a/{assistant_id}
// with @a2a-js/sdk's client through its v0.3 compatibility layer (pinned
// in mcp/testdata/js/package-lock.json, script mcp/testdata/js/a2a.mjs):
// the card at both well-known URLs and refused without credentials,
// message/send with the final values as the artifact, tasks/get, a failed
// task, message/stream's events in order, an input-required round trip
// over send and over stream (the next message in the context resumes the
// interrupted run and the task completes), and tasks/cancel of a task
// started without blocking.
func TestA2AEndpointServesTheOfficialJSClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: install Node 20+ and run `npm ci --prefix mcp/testdata/js --no-audit --no-fund` to run this test")
	}
	dir, err := filepath.Abs(filepath.Join("..", "mcp", "testdata", "js"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk")); err != nil {
		t.Skip("@a2a-js/sdk is not installed: run `npm ci --prefix mcp/testdata/js --no-audit --no-fund` to run this test")
	}
	h := newHarness(t, server.WithA2A(), server.WithAuth(userAuth))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "a2a.mjs", h.http.URL, "ann")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node a2a.mjs:\n%s", out)
	require.NoError(t, err, "the A2A JS client failed against /a2a")
	require.Contains(t, string(out), "all ok")
}
