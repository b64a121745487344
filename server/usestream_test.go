package server_test

import (
	"path/filepath"
	"testing"
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
	js := needJS(t, filepath.Join("testdata", "sdk"), "@langchain/langgraph-sdk", "@langchain/core", "react-test-renderer")
	h := newChatHarness(t)
	js.run(t, "LangChain's JS packages", "usestream.mjs", nil, h.http.URL)
}
