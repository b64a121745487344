package server_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/server"
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
	js := needJS(t, filepath.Join("..", "mcp", "testdata", "js"), "@a2a-js/sdk")
	h := newHarness(t, server.WithA2A(), server.WithAuth(userAuth))
	js.run(t, "the A2A JS client", "a2a.mjs", nil, h.http.URL, "ann")
}
