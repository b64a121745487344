package server_test

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThreadCreateGetPatchDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	th := h.json("POST", "/threads", map[string]any{"thread_id": "t1", "metadata": map[string]any{"user": "ann", "n": 1}}, 200)
	assert.Equal(t, "t1", th["thread_id"])
	assert.Equal(t, "idle", th["status"])
	assert.Equal(t, map[string]any{}, th["values"])
	assert.Equal(t, map[string]any{"user": "ann", "n": 1.0}, th["metadata"])

	got := h.json("GET", "/threads/t1", nil, 200)
	assert.Equal(t, th["metadata"], got["metadata"])

	patched := h.json("PATCH", "/threads/t1", map[string]any{"metadata": map[string]any{"n": 2, "tag": "x"}}, 200)
	assert.Equal(t, map[string]any{"user": "ann", "n": 2.0, "tag": "x"}, patched["metadata"])

	code, _ := h.do("DELETE", "/threads/t1", nil)
	assert.Equal(t, 204, code)
	code, body := h.do("GET", "/threads/t1", nil)
	assert.Equal(t, 404, code)
	assert.Contains(t, detail(t, body), `thread "t1"`)
}

func TestThreadCreateIfExists(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t1", "metadata": map[string]any{"v": 1}}, 200)
	tests := []struct {
		ifExists string
		code     int
	}{{"", 409}, {"raise", 409}, {"do_nothing", 200}, {"bogus", 422}}
	for _, tt := range tests {
		code, body := h.do("POST", "/threads", map[string]any{"thread_id": "t1", "if_exists": tt.ifExists, "metadata": map[string]any{"v": 2}})
		assert.Equal(t, tt.code, code, "if_exists %q: %s", tt.ifExists, body)
	}
	assert.Equal(t, map[string]any{"v": 1.0}, h.json("GET", "/threads/t1", nil, 200)["metadata"], "do_nothing keeps the thread as it was")
}

func TestThreadSearchByMetadataStatusAndPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i, user := range []string{"ann", "bob", "ann"} {
		h.json("POST", "/threads", map[string]any{"thread_id": string(rune('a' + i)), "metadata": map[string]any{"user": user}}, 200)
	}
	// Thread c stops at an interrupt.
	h.json("POST", "/threads/c/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)

	ids := func(ts []map[string]any) []string {
		var out []string
		for _, th := range ts {
			out = append(out, th["thread_id"].(string))
		}
		return out
	}
	tests := []struct {
		name  string
		query map[string]any
		want  []string
	}{
		{"all, newest first", map[string]any{}, []string{"c", "b", "a"}},
		{"by metadata", map[string]any{"metadata": map[string]any{"user": "ann"}}, []string{"c", "a"}},
		{"by status", map[string]any{"status": "interrupted"}, []string{"c"}},
		{"idle", map[string]any{"status": "idle"}, []string{"b", "a"}},
		{"limit and offset", map[string]any{"limit": 1, "offset": 1}, []string{"b"}},
		{"oldest first", map[string]any{"sort_by": "created_at", "sort_order": "asc"}, []string{"a", "b", "c"}},
		{"by values", map[string]any{"values": map[string]any{"topic": "go"}}, []string{"c"}},
		{"by ids", map[string]any{"ids": []string{"a", "b"}}, []string{"b", "a"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ids(h.list("POST", "/threads/search", tt.query)), tt.name)
	}
	code, body := h.do("POST", "/threads/search", map[string]any{"status": "sleeping"})
	assert.Equal(t, 422, code)
	assert.Contains(t, string(body), "status")
	code, body = h.do("POST", "/threads/count", map[string]any{"metadata": map[string]any{"user": "ann"}})
	assert.Equal(t, 200, code)
	assert.Equal(t, "2\n", string(body))
}

func TestThreadCopyKeepsCheckpointsAndMetadata(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "src", "metadata": map[string]any{"user": "ann"}}, 200)
	h.json("POST", "/threads/src/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	cp := h.json("POST", "/threads/src/copy", nil, 200)
	require.NotEqual(t, "src", cp["thread_id"])
	assert.Equal(t, "ann", cp["metadata"].(map[string]any)["user"])
	assert.Equal(t, []any{"echo: hi"}, cp["values"].(map[string]any)["replies"])
	src := h.list("POST", "/threads/src/history", map[string]any{})
	dst := h.list("POST", "/threads/"+cp["thread_id"].(string)+"/history", map[string]any{})
	assert.Len(t, dst, len(src))

	// The copy goes on by itself.
	h.json("POST", "/threads/"+cp["thread_id"].(string)+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "again"}}, 200)
	assert.Len(t, h.list("POST", "/threads/src/history", map[string]any{}), len(src))
}

func TestThreadBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithMaxBody(1024))
	tests := []struct {
		name, method, path string
		body               any
		code               int
		detail             string
	}{
		{"malformed JSON", "POST", "/threads", "{", 422, "malformed JSON"},
		{"oversized body", "POST", "/threads", `{"metadata":{"x":"` + strings.Repeat("a", 2000) + `"}}`, 413, "larger than 1024"},
		{"unknown thread", "GET", "/threads/none", nil, 404, `"none"`},
		{"unknown thread state", "GET", "/threads/none/state", nil, 404, `"none"`},
		{"patch unknown thread", "PATCH", "/threads/none", map[string]any{}, 404, `"none"`},
		{"delete unknown thread", "DELETE", "/threads/none", nil, 404, `"none"`},
		{"unknown path", "GET", "/store/items", nil, 404, "not served"},
		{"supersteps", "POST", "/threads", map[string]any{"supersteps": []any{1}}, 422, "supersteps"},
		{"unknown graph", "POST", "/threads", map[string]any{"graph_id": "nope"}, 404, `"nope"`},
	}
	for _, tt := range tests {
		code, body := h.do(tt.method, tt.path, tt.body)
		assert.Equal(t, tt.code, code, "%s: %s", tt.name, body)
		assert.Contains(t, detail(t, body), tt.detail, tt.name)
	}
}
