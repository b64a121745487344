package server_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

func TestHistoryTasksCarryTheirResult(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	var respond map[string]any
	for _, st := range h.list("POST", "/threads/t/history", map[string]any{}) {
		for _, task := range st["tasks"].([]any) {
			if task := task.(map[string]any); task["name"] == "respond" {
				respond = task
			}
		}
	}
	require.NotNil(t, respond, "a checkpoint with respond pending")
	assert.Equal(t, map[string]any{"replies": []any{"echo: hi"}}, respond["result"], "what the task wrote")
}

func TestMessagesKeepTheNodesMessageIDs(t *testing.T) {
	t.Parallel()
	type Chat struct{ Said []string }
	said := state.Append("said", func(c *Chat) *[]string { return &c.Said })
	app, err := graph.New(state.NewSchema(said)).
		AddNode("talk", func(ctx context.Context, c Chat) (state.Update[Chat], error) {
			for _, id := range []string{"m-1", "m-2"} {
				stream := graph.StreamingFunc(ctx, id)
				_ = stream(ctx, []byte(id+" a"))
				_ = stream(ctx, []byte(" b"))
			}
			return state.Writes(said.Set([]string{"done"})), nil
		}).
		AddEdge(graph.Start, "talk").AddEdge("talk", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("chat", app)})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv)}
	t.Cleanup(func() {
		h.http.Close()
		require.NoError(t, srv.Close())
	})
	_, evs := h.stream("/runs/stream", map[string]any{"assistant_id": "chat", "input": map[string]any{}, "stream_mode": []string{"messages"}})
	var complete []map[string]any
	for _, ev := range evs {
		if ev.Event == "messages/complete" {
			complete = append(complete, decode[[]map[string]any](t, ev.Data)[0])
		}
	}
	require.Len(t, complete, 2)
	assert.Equal(t, "m-1", complete[0]["id"])
	assert.Equal(t, "m-1 a b", complete[0]["content"])
	assert.Equal(t, "m-2", complete[1]["id"])
	assert.Equal(t, "m-2 a b", complete[1]["content"])
}
