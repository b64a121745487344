package server_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// as sends a request as user (X-User), or anonymously when user is "".
func (h *harness) as(user, method, path string, body any) (int, []byte) {
	h.t.Helper()
	h.header = http.Header{}
	if user != "" {
		h.header.Set("X-User", user)
	}
	defer func() { h.header = nil }()
	return h.do(method, path, body)
}

func TestAuthKeepsEachUsersThreadsToThemselves(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithAuth(func(r *http.Request) (string, error) {
		if u := r.Header.Get("X-User"); u != "" {
			return u, nil
		}
		return "", errors.New("no X-User header")
	}))
	code, body := h.as("", "POST", "/threads", map[string]any{})
	assert.Equal(t, 401, code)
	assert.Contains(t, detail(t, body), "no X-User")

	code, body = h.as("ann", "POST", "/threads", map[string]any{"thread_id": "ann1", "metadata": map[string]any{"owner": "mallory"}})
	require.Equal(t, 200, code, "%s", body)
	assert.Equal(t, "ann", decode[map[string]any](t, body)["metadata"].(map[string]any)["owner"], "the owner is the user, whatever the body says")
	code, _ = h.as("ann", "POST", "/threads/ann1/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}})
	require.Equal(t, 200, code)
	code, _ = h.as("ann", "PATCH", "/threads/ann1", map[string]any{"metadata": map[string]any{"owner": "bob"}})
	require.Equal(t, 200, code)

	for _, req := range []struct{ method, path string }{
		{"GET", "/threads/ann1"}, {"GET", "/threads/ann1/state"}, {"POST", "/threads/ann1/history"},
		{"GET", "/threads/ann1/runs"}, {"POST", "/threads/ann1/copy"}, {"DELETE", "/threads/ann1"},
		{"POST", "/threads/ann1/runs/wait"},
	} {
		code, body := h.as("bob", req.method, req.path, map[string]any{"assistant_id": "echo"})
		assert.Equal(t, 404, code, "%s %s: %s", req.method, req.path, body)
	}
	code, body = h.as("bob", "POST", "/threads/search", map[string]any{})
	require.Equal(t, 200, code)
	assert.JSONEq(t, "[]", string(body))
	code, body = h.as("ann", "POST", "/threads/search", map[string]any{})
	require.Equal(t, 200, code)
	assert.Len(t, decode[[]map[string]any](t, body), 1)
	code, body = h.as("ann", "GET", "/threads/ann1", nil)
	require.Equal(t, 200, code)
	assert.Equal(t, "ann", decode[map[string]any](t, body)["metadata"].(map[string]any)["owner"], "a thread stays its creator's")
	code, _ = h.as("bob", "POST", "/threads", map[string]any{"thread_id": "ann1", "if_exists": "do_nothing"})
	assert.Equal(t, 409, code, "another user's thread id is taken, not shared")
}
