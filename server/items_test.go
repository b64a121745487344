package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/server"
	storememory "github.com/stategraph/stategraph/store/memory"
)

func newItemsHarness(t *testing.T) *harness {
	items, err := storememory.New()
	require.NoError(t, err)
	return newHarness(t, server.WithStore(items))
}

func TestStoreItemsRoundTrip(t *testing.T) {
	t.Parallel()
	h := newItemsHarness(t)
	code, body := h.do("PUT", "/store/items", map[string]any{"namespace": []string{"a", "b"}, "key": "k", "value": map[string]any{"n": 1}, "index": false})
	require.Equal(t, 204, code, "%s", body)
	got := h.json("GET", "/store/items?namespace=a.b&key=k", nil, 200)
	assert.Equal(t, []any{"a", "b"}, got["namespace"])
	assert.Equal(t, map[string]any{"n": float64(1)}, got["value"])
	assert.NotEmpty(t, got["created_at"])
	found := h.json("POST", "/store/items/search", map[string]any{"namespace_prefix": []string{"a"}, "filter": map[string]any{"n": 1}}, 200)
	require.Len(t, found["items"], 1)
	assert.NotContains(t, found["items"].([]any)[0], "score", "no score without a query")
	nss := h.json("POST", "/store/namespaces", map[string]any{}, 200)
	assert.Equal(t, []any{[]any{"a", "b"}}, nss["namespaces"])
	code, _ = h.do("DELETE", "/store/items", map[string]any{"namespace": []string{"a", "b"}, "key": "k"})
	assert.Equal(t, 204, code)
	code, _ = h.do("GET", "/store/items?namespace=a.b&key=k", nil)
	assert.Equal(t, 404, code)
	assert.Equal(t, map[string]any{"items": []any{}}, h.json("POST", "/store/items/search", map[string]any{}, 200))
}

func TestStoreItemsRefusals(t *testing.T) {
	t.Parallel()
	h := newItemsHarness(t)
	tests := []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"missing item", "GET", "/store/items?namespace=a&key=nope", nil, 404},
		{"no namespace", "PUT", "/store/items", map[string]any{"key": "k", "value": map[string]any{}}, 422},
		{"label with a period", "PUT", "/store/items", map[string]any{"namespace": []string{"a.b"}, "key": "k", "value": map[string]any{}}, 422},
		{"no key", "PUT", "/store/items", map[string]any{"namespace": []string{"a"}, "value": map[string]any{}}, 422},
		{"value not an object", "PUT", "/store/items", `{"namespace":["a"],"key":"k","value":[1]}`, 422},
		{"no value", "PUT", "/store/items", map[string]any{"namespace": []string{"a"}, "key": "k"}, 422},
		{"bad index", "PUT", "/store/items", map[string]any{"namespace": []string{"a"}, "key": "k", "value": map[string]any{}, "index": 3}, 422},
		{"bad ttl", "PUT", "/store/items", map[string]any{"namespace": []string{"a"}, "key": "k", "value": map[string]any{}, "ttl": -1}, 422},
		{"query without an index", "POST", "/store/items/search", map[string]any{"query": "hello"}, 422},
	}
	for _, tt := range tests {
		code, body := h.do(tt.method, tt.path, tt.body)
		assert.Equal(t, tt.want, code, "%s: %s", tt.name, body)
	}
}

func TestStoreAPIIsNotServedWithoutWithStore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code, _ := h.do("PUT", "/store/items", map[string]any{"namespace": []string{"a"}, "key": "k", "value": map[string]any{}})
	assert.Equal(t, 404, code)
}
