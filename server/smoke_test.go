package server_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	h := newHarness(t)
	th := h.json("POST", "/threads", nil, 200)
	tid := th["thread_id"].(string)
	_, evs := h.stream("/threads/"+tid+"/runs/stream", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}, "stream_mode": []string{"values", "updates", "checkpoints", "tasks"}})
	for _, ev := range evs {
		t.Logf("%s %s %s", ev.ID, ev.Event, ev.Data)
	}
	st := h.json("GET", "/threads/"+tid, nil, 200)
	t.Logf("%v", st)
	require.NotEmpty(t, evs)
}
