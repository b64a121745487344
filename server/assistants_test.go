package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAssistantsOnePerGraphFoundByIDOrGraphID(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	all := h.list("POST", "/assistants/search", map[string]any{})
	require.Len(t, all, 3)
	var ids []string
	for _, a := range all {
		ids = append(ids, a["graph_id"].(string))
		assert.NotEmpty(t, a["assistant_id"])
		assert.Equal(t, a["graph_id"], a["name"])
	}
	assert.Equal(t, []string{"echo", "review", "gate"}, ids)

	byGraph := h.json("GET", "/assistants/review", nil, 200)
	byID := h.json("GET", "/assistants/"+byGraph["assistant_id"].(string), nil, 200)
	assert.Equal(t, byGraph, byID)
	// LangGraph's id of a graph's default assistant: UUIDv5(NAMESPACE_URL, graph id).
	assert.Equal(t, "f7365fb3-4750-5430-91b3-f341cef95736", byGraph["assistant_id"])

	filtered := h.list("POST", "/assistants/search", map[string]any{"graph_id": "gate"})
	require.Len(t, filtered, 1)
	assert.Equal(t, "gate", filtered[0]["graph_id"])
	paged := h.list("POST", "/assistants/search", map[string]any{"limit": 1, "offset": 1})
	require.Len(t, paged, 1)
	assert.Equal(t, "review", paged[0]["graph_id"])
}

func TestAssistantErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, path := range []string{"/assistants/nope", "/assistants/nope/graph", "/assistants/nope/schemas"} {
		code, body := h.do("GET", path, nil)
		assert.Equal(t, 404, code, path)
		assert.Contains(t, string(body), `"detail"`)
		assert.Contains(t, string(body), "nope")
	}
	code, body := h.do("POST", "/assistants/search", "{not json")
	assert.Equal(t, 422, code)
	assert.Contains(t, string(body), "malformed JSON")
}

func TestAssistantGraphDrawsNodesAndEdges(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	d := h.json("GET", "/assistants/review/graph", nil, 200)
	var nodes []string
	for _, n := range d["nodes"].([]any) {
		nodes = append(nodes, n.(map[string]any)["id"].(string))
	}
	assert.Equal(t, []string{"__start__", "write", "review", "__end__"}, nodes)
	var edges [][2]string
	for _, e := range d["edges"].([]any) {
		m := e.(map[string]any)
		edges = append(edges, [2]string{m["source"].(string), m["target"].(string)})
		assert.Equal(t, false, m["conditional"])
	}
	assert.ElementsMatch(t, [][2]string{{"__start__", "write"}, {"write", "review"}, {"review", "__end__"}}, edges)
}

func TestAssistantSchemasTypeEachField(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sc := h.json("GET", "/assistants/review/schemas", nil, 200)
	assert.Equal(t, "review", sc["graph_id"])
	props := sc["state_schema"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, "string", props["topic"].(map[string]any)["type"])
	assert.Equal(t, "boolean", props["approved"].(map[string]any)["type"])
	assert.Equal(t, "array", props["notes"].(map[string]any)["type"])
	assert.Equal(t, sc["state_schema"], sc["input_schema"])
}
