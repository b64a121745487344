package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

// Two levels of subgraphs, the inner one over another state type:
// GET /assistants/{id}/graph?xray=N draws N levels inside, and
// /subgraphs lists them by namespace (parent|child with recurse), each
// with its own state's schema.
func TestSubgraphsAndXrayDrawing(t *testing.T) {
	t.Parallel()
	type Deep struct{ Count int }
	count := state.Value("count", func(d *Deep) *int { return &d.Count })
	deep, err := graph.New(state.NewSchema(count)).
		AddNode("y", func(ctx context.Context, d Deep) (state.Update[Deep], error) { return state.Writes(count.Set(1)), nil }).
		AddEdge(graph.Start, "y").AddEdge("y", graph.End).
		Compile()
	require.NoError(t, err)
	schema := state.NewSchema(echoInput, echoReplies)
	noop := func(ctx context.Context, e Echo) (state.Update[Echo], error) { return state.Update[Echo]{}, nil }
	mid := graph.New(schema).AddNode("x", noop).AddEdge(graph.Start, "x").AddEdge("x", "deep").AddEdge("deep", graph.End)
	mid = graph.AddSubgraphMapped(mid, "deep", deep,
		func(Echo) state.Update[Deep] { return state.Update[Deep]{} },
		func(Echo, Deep) state.Update[Echo] { return state.Update[Echo]{} })
	midC, err := mid.Compile()
	require.NoError(t, err)
	outer, err := graph.New(schema).
		AddNode("pre", noop).AddSubgraph("mid", midC).
		AddEdge(graph.Start, "pre").AddEdge("pre", "mid").AddEdge("mid", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("outer", outer)})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv)}
	t.Cleanup(func() { h.http.Close(); srv.Close() })

	drawn := func(xray string) (nodes, edges []string) {
		d := h.json("GET", "/assistants/outer/graph?xray="+xray, nil, 200)
		for _, n := range d["nodes"].([]any) {
			nodes = append(nodes, n.(map[string]any)["id"].(string))
		}
		for _, e := range d["edges"].([]any) {
			e := e.(map[string]any)
			edges = append(edges, fmt.Sprintf("%s>%s", e["source"], e["target"]))
		}
		sort.Strings(edges)
		return nodes, edges
	}
	tests := []struct {
		xray         string
		nodes, edges []string
	}{
		{"false", []string{"__start__", "pre", "mid", "__end__"}, []string{"__start__>pre", "mid>__end__", "pre>mid"}},
		{"1", []string{"__start__", "pre", "mid:x", "mid:deep", "__end__"},
			[]string{"__start__>pre", "mid:deep>__end__", "mid:x>mid:deep", "pre>mid:x"}},
		{"true", []string{"__start__", "pre", "mid:x", "mid:deep:y", "__end__"},
			[]string{"__start__>pre", "mid:deep:y>__end__", "mid:x>mid:deep:y", "pre>mid:x"}},
	}
	for _, tt := range tests {
		nodes, edges := drawn(tt.xray)
		assert.Equal(t, tt.nodes, nodes, "xray=%s", tt.xray)
		assert.Equal(t, tt.edges, edges, "xray=%s", tt.xray)
	}
	code, body := h.do("GET", "/assistants/outer/graph?xray=deep", nil)
	assert.Equal(t, 422, code)
	assert.Contains(t, detail(t, body), "xray")

	keys := func(path string) []string {
		var out []string
		for k := range h.json("GET", path, nil, 200) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	assert.Equal(t, []string{"mid"}, keys("/assistants/outer/subgraphs"))
	assert.Equal(t, []string{"mid", "mid|deep"}, keys("/assistants/outer/subgraphs?recurse=true"))
	assert.Equal(t, []string{"mid|deep"}, keys("/assistants/outer/subgraphs/mid%7Cdeep"))
	subs := h.json("GET", "/assistants/outer/subgraphs?recurse=true", nil, 200)
	deepSchema := subs["mid|deep"].(map[string]any)["state_schema"].(map[string]any)
	assert.Equal(t, "integer", deepSchema["properties"].(map[string]any)["count"].(map[string]any)["type"], "the inner graph's own state")
}
