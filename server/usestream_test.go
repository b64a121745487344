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

// TestUseStreamAndLangChainCoreReadTheChatAssistant drives the served
// chat assistant with LangChain's own JS packages (pinned in
// testdata/sdk/package-lock.json): useStream rendered with
// react-test-renderer sends a message, renders the tool call, its result
// and the answer, approves a reviewed call from an interrupt and
// continues; the SDK's messages-tuple stream becomes @langchain/core
// AIMessageChunks equal to the state's messages; and every message maps
// through mapStoredMessageToChatMessage unchanged (testdata/sdk/usestream.mjs).
func TestUseStreamAndLangChainCoreReadTheChatAssistant(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: install Node 20+ and run `npm ci --prefix server/testdata/sdk` to run this test")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "sdk"))
	require.NoError(t, err)
	for _, pkg := range []string{"@langchain/langgraph-sdk", "@langchain/core", "react-test-renderer"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			t.Skipf("%s is not installed: run `npm ci --prefix server/testdata/sdk` to run this test", pkg)
		}
	}
	h := newChatHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "usestream.mjs", h.http.URL)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node usestream.mjs:\n%s", out)
	require.NoError(t, err, "LangChain's JS packages failed against the chat assistant")
	require.Contains(t, string(out), "all ok")
}
