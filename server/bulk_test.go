package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors bulk_update_state through the API: POST
// /threads/{id}/state/bulk applies supersteps, one checkpoint each, all or
// none; POST /threads with graph_id and supersteps creates a thread with
// them (a copy of a thread), or no thread when they fail.
func TestBulkStateUpdateThroughTheAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t", "graph_id": "review"}, 200)
	out := h.json("POST", "/threads/t/state/bulk", map[string]any{"supersteps": []any{
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"topic": "go"}, "as_node": "__start__"}}},
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"draft": "on go"}, "as_node": "write"}}},
	}}, 200)
	last := out["checkpoint"].(map[string]any)["checkpoint_id"]
	st := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, last, st["checkpoint"].(map[string]any)["checkpoint_id"])
	assert.Equal(t, []any{"review"}, st["next"])
	assert.Equal(t, "on go", st["values"].(map[string]any)["draft"])
	assert.Len(t, h.list("POST", "/threads/t/history", map[string]any{}), 2)

	// Two writes of one field in a superstep conflict: nothing is stored.
	code, body := h.do("POST", "/threads/t/state/bulk", map[string]any{"supersteps": []any{
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"topic": "x"}, "as_node": "write"}}},
		map[string]any{"updates": []any{
			map[string]any{"values": map[string]any{"draft": "a"}, "as_node": "write"},
			map[string]any{"values": map[string]any{"draft": "b"}, "as_node": "review"},
		}},
	}})
	assert.Equal(t, 422, code, "%s", body)
	assert.Contains(t, string(body), "superstep 1")
	assert.Len(t, h.list("POST", "/threads/t/history", map[string]any{}), 2)
	code, body = h.do("POST", "/threads/t/state/bulk", map[string]any{"supersteps": []any{
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"nope": 1}, "as_node": "write"}}},
	}})
	assert.Equal(t, 422, code, "%s", body)
	assert.Contains(t, string(body), "supersteps[0].updates[0].values.nope")

	// A thread created with supersteps runs on from them.
	h.json("POST", "/threads", map[string]any{"thread_id": "copy", "graph_id": "review", "supersteps": []any{
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"topic": "go"}, "as_node": "__start__"}}},
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"draft": "copied"}, "as_node": "write"}}},
	}}, 200)
	res := h.json("POST", "/threads/copy/runs/wait", map[string]any{"assistant_id": "review", "input": nil}, 200)
	require.Len(t, res["__interrupt__"], 1, "%v", res)
	assert.Equal(t, "copied", res["draft"])

	code, body = h.do("POST", "/threads", map[string]any{"thread_id": "bad", "graph_id": "review", "supersteps": []any{
		map[string]any{"updates": []any{map[string]any{"values": map[string]any{"topic": "go"}, "as_node": "nope"}}},
	}})
	assert.Equal(t, 422, code, "%s", body)
	code, _ = h.do("GET", "/threads/bad", nil)
	assert.Equal(t, 404, code, "no thread when its supersteps fail")
}
