package server_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// TestRunEndingAnyWayReleasesItsLease: a run that ends in an error, a
// panic of its node or a cancellation gives its thread's lease up on the
// way out, so the next run on the thread goes at once.
func TestRunEndingAnyWayReleasesItsLease(t *testing.T) {
	t.Parallel()
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "checkpoints.db"))
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	boom, err := graph.New(state.NewSchema(echoInput, echoReplies)).
		AddNode("respond", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			if e.Input == "panic" {
				panic("the node panicked")
			}
			return state.Writes(echoReplies.Set([]string{"ok: " + e.Input})), nil
		}).
		AddEdge(graph.Start, "respond").
		AddEdge("respond", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("boom"))
	require.NoError(t, err)
	gs := newGates()
	srv, err := server.New([]server.Graph{
		server.Register("echo", echoGraph(t, saver)),
		server.Register("boom", boom),
		server.Register("gate", gs.graph(t, saver)),
	})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv), gates: gs}
	t.Cleanup(func() {
		h.http.Close()
		require.NoError(t, srv.Close())
	})
	ctx := context.Background()
	requireFree := func(thread, why string) {
		t.Helper()
		info, err := saver.LeaseOf(ctx, thread)
		require.NoError(t, err)
		require.Nil(t, info, "%s: the run's lease is released", why)
	}

	t.Run("error", func(t *testing.T) {
		h.json("POST", "/threads", map[string]any{"thread_id": "err"}, 200)
		out := h.json("POST", "/threads/err/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "fail"}}, 200)
		require.Contains(t, out, "__error__")
		requireFree("err", "a node's error")
		out = h.json("POST", "/threads/err/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "again"}}, 200)
		assert.NotContains(t, out, "__error__")
	})
	t.Run("panic", func(t *testing.T) {
		h.json("POST", "/threads", map[string]any{"thread_id": "panic"}, 200)
		out := h.json("POST", "/threads/panic/runs/wait", map[string]any{"assistant_id": "boom", "input": map[string]any{"input": "panic"}}, 200)
		require.Contains(t, out, "__error__")
		assert.Contains(t, out["__error__"].(map[string]any)["message"], "panicked")
		requireFree("panic", "a node's panic")
		out = h.json("POST", "/threads/panic/runs/wait", map[string]any{"assistant_id": "boom", "input": map[string]any{"input": "calm"}}, 200)
		assert.NotContains(t, out, "__error__")
	})
	t.Run("cancel", func(t *testing.T) {
		h.json("POST", "/threads", map[string]any{"thread_id": "cancel"}, 200)
		run := h.json("POST", "/threads/cancel/runs", map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": []string{"in"}}}, 200)
		<-gs.ch // the run waits in its node: it holds the lease
		info, err := saver.LeaseOf(ctx, "cancel")
		require.NoError(t, err)
		require.NotNil(t, info, "a running run holds its lease")
		code, body := h.do("POST", "/threads/cancel/runs/"+run["run_id"].(string)+"/cancel?wait=1", nil)
		require.Equal(t, 204, code, "%s", body)
		requireFree("cancel", "a cancellation")
		go func() { close(<-gs.ch) }()
		out := h.json("POST", "/threads/cancel/runs/wait", map[string]any{"assistant_id": "gate"}, 200)
		assert.NotContains(t, out, "__error__")
	})
}
