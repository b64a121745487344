package server_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubgraphEventsAreNamedWithTheirNamespace(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	inner := echoGraph(t, saver)
	outer, err := graph.New(state.NewSchema(echoInput, echoReplies)).
		AddNode("prepare", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			return state.Writes(echoInput.Set(strings.ToUpper(e.Input))), nil
		}).
		AddSubgraph("inner", inner).
		AddEdge(graph.Start, "prepare").
		AddEdge("prepare", "inner").
		AddEdge("inner", graph.End).
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("outer", outer)})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv)}
	t.Cleanup(func() { h.http.Close(); srv.Close() })

	d := h.json("GET", "/assistants/outer/graph", nil, 200)
	assert.Len(t, d["edges"], 3, "a subgraph is drawn as its node")

	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	body := map[string]any{"assistant_id": "outer", "input": map[string]any{"input": "hi"}, "stream_mode": "updates"}
	_, plain := h.stream("/threads/t/runs/stream", body)
	for _, ev := range plain {
		assert.NotContains(t, ev.Event, "|", "no subgraph events without stream_subgraphs")
	}
	body["stream_subgraphs"] = true
	_, evs := h.stream("/threads/t/runs/stream", body)
	var sub []sse
	for _, ev := range evs {
		if strings.HasPrefix(ev.Event, "updates|") {
			sub = append(sub, ev)
		}
	}
	require.Len(t, sub, 1, "%v", names(evs))
	assert.True(t, strings.HasPrefix(sub[0].Event, "updates|inner:"), sub[0].Event)
	assert.JSONEq(t, `{"respond":{"replies":["echo: HI"]}}`, string(sub[0].Data))
	assert.Contains(t, names(evs), "updates")
}
