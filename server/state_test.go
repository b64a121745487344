package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoThread makes thread tid with two echo runs on it.
func echoThread(h *harness, tid string) {
	h.json("POST", "/threads", map[string]any{"thread_id": tid}, 200)
	for _, in := range []string{"one", "two"} {
		h.json("POST", "/threads/"+tid+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": in}}, 200)
	}
}

func TestStateLatestAndAtCheckpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "fresh"}, 200)
	empty := h.json("GET", "/threads/fresh/state", nil, 200)
	assert.Equal(t, map[string]any{}, empty["values"])
	assert.Equal(t, []any{}, empty["next"])

	echoThread(h, "t")
	st := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, map[string]any{"input": "two", "replies": []any{"echo: one", "echo: two"}}, st["values"])
	assert.Equal(t, []any{}, st["next"])
	md := st["metadata"].(map[string]any)
	assert.Equal(t, "loop", md["source"])
	assert.NotEmpty(t, md["run_id"])
	parent := st["parent_checkpoint"].(map[string]any)["checkpoint_id"].(string)

	at := h.json("GET", "/threads/t/state/"+parent, nil, 200)
	assert.Equal(t, parent, at["checkpoint"].(map[string]any)["checkpoint_id"])
	assert.Equal(t, []any{"respond"}, at["next"])
	viaPost := h.json("POST", "/threads/t/state/checkpoint", map[string]any{"checkpoint": map[string]any{"checkpoint_id": parent}}, 200)
	assert.Equal(t, at, viaPost)

	code, body := h.do("GET", "/threads/t/state/nope", nil)
	assert.Equal(t, 404, code, "%s", body)
}

func TestHistoryLimitBeforeAndMetadata(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	echoThread(h, "t")
	all := h.list("POST", "/threads/t/history", map[string]any{"limit": 100})
	// Each run: input (step -1 or next), loop (step 0), loop after respond.
	require.Len(t, all, 6)
	id := func(s map[string]any) string { return s["checkpoint"].(map[string]any)["checkpoint_id"].(string) }
	tests := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"default limit 10", map[string]any{}, []string{id(all[0]), id(all[1]), id(all[2]), id(all[3]), id(all[4]), id(all[5])}},
		{"limit", map[string]any{"limit": 2}, []string{id(all[0]), id(all[1])}},
		{"before an id", map[string]any{"before": id(all[3])}, []string{id(all[4]), id(all[5])}},
		{"before a config", map[string]any{"before": map[string]any{"configurable": map[string]any{"checkpoint_id": id(all[4])}}}, []string{id(all[5])}},
		{"by metadata", map[string]any{"metadata": map[string]any{"source": "input"}}, []string{id(all[2]), id(all[5])}},
		{"from a checkpoint", map[string]any{"checkpoint": map[string]any{"checkpoint_id": id(all[3])}, "limit": 2}, []string{id(all[3]), id(all[4])}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range h.list("POST", "/threads/t/history", tt.body) {
			got = append(got, id(s))
		}
		assert.Equal(t, tt.want, got, tt.name)
	}
	viaGet := h.list("GET", "/threads/t/history?limit=1", nil)
	require.Len(t, viaGet, 1)
	assert.Equal(t, id(all[0]), id(viaGet[0]))
}

func TestUpdateStateAsNodeAndFork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	echoThread(h, "t")
	before := h.json("GET", "/threads/t/state", nil, 200)

	up := h.json("POST", "/threads/t/state", map[string]any{"values": map[string]any{"replies": []string{"edited"}}, "as_node": "respond"}, 200)
	cid := up["checkpoint"].(map[string]any)["checkpoint_id"].(string)
	st := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, cid, st["checkpoint"].(map[string]any)["checkpoint_id"])
	assert.Equal(t, []any{"echo: one", "echo: two", "edited"}, st["values"].(map[string]any)["replies"], "written through the append reducer")
	assert.Equal(t, "update", st["metadata"].(map[string]any)["source"])

	// From a past checkpoint: a fork, the old branch kept.
	first := h.list("POST", "/threads/t/history", map[string]any{"metadata": map[string]any{"source": "input"}})
	old := first[len(first)-1]["checkpoint"].(map[string]any)["checkpoint_id"].(string)
	h.json("POST", "/threads/t/state", map[string]any{"values": map[string]any{"input": "forked"}, "checkpoint_id": old}, 200)
	forked := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, "forked", forked["values"].(map[string]any)["input"])
	assert.Equal(t, old, forked["parent_checkpoint"].(map[string]any)["checkpoint_id"])
	still := h.json("GET", "/threads/t/state/"+before["checkpoint"].(map[string]any)["checkpoint_id"].(string), nil, 200)
	assert.Equal(t, before["values"], still["values"])

	tests := []struct {
		name   string
		body   map[string]any
		code   int
		detail string
	}{
		{"unknown field", map[string]any{"values": map[string]any{"nope": 1}}, 422, `field "nope"`},
		{"wrong type", map[string]any{"values": map[string]any{"input": 3}}, 422, `field "input"`},
		{"unknown node", map[string]any{"values": map[string]any{}, "as_node": "ghost"}, 422, `"ghost"`},
	}
	for _, tt := range tests {
		code, body := h.do("POST", "/threads/t/state", tt.body)
		assert.Equal(t, tt.code, code, "%s: %s", tt.name, body)
		assert.Contains(t, detail(t, body), tt.detail, tt.name)
	}
	h.json("POST", "/threads", map[string]any{"thread_id": "norun"}, 200)
	code, body := h.do("POST", "/threads/norun/state", map[string]any{"values": map[string]any{}})
	assert.Equal(t, 409, code, "%s", body)
}
