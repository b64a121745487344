package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhookReceivesTheFinishedRun(t *testing.T) {
	t.Parallel()
	got := make(chan map[string]any, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		got <- m
	}))
	defer hook.Close()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	run := h.json("POST", "/threads/t/runs", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "webhook": hook.URL}, 200)
	select {
	case m := <-got:
		assert.Equal(t, run["run_id"], m["run_id"])
		assert.Equal(t, "success", m["status"])
		assert.Equal(t, map[string]any{"input": "hi", "replies": []any{"echo: hi"}}, m["values"])
	case <-time.After(10 * time.Second):
		require.Fail(t, "the webhook was not called")
	}
}
