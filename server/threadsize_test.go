package server_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stretchr/testify/require"
)

func TestGetThreadReportsItsStorage(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]*harness{"memory": newHarness(t), "sqlite": newSQLiteHarness(t)} {
		t.Run(name, func(t *testing.T) {
			th := h.json("POST", "/threads", map[string]any{}, 200)
			tid := th["thread_id"].(string)
			require.NotContains(t, h.json("GET", "/threads/"+tid, nil, 200), "storage", "a thread without a graph has no checkpoints to report")
			h.json("POST", "/threads/"+tid+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
			got := h.json("GET", "/threads/"+tid, nil, 200)
			require.Contains(t, got, "storage")
			st := got["storage"].(map[string]any)
			// The input, the start step and the respond step.
			require.EqualValues(t, 3, st["checkpoints"], "%v", st)
			require.EqualValues(t, 0, st["writes"], "a finished run leaves no pending writes: %v", st)
			require.Greater(t, st["bytes"].(float64), float64(len("echo: hi")), "%v", st)

			h.json("POST", "/threads/"+tid+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "again"}}, 200)
			more := h.json("GET", "/threads/"+tid, nil, 200)["storage"].(map[string]any)
			require.Greater(t, more["checkpoints"].(float64), st["checkpoints"].(float64))
			require.Greater(t, more["bytes"].(float64), st["bytes"].(float64))

			// A thread stopped at an interrupt keeps its pending writes.
			rv := h.json("POST", "/threads", map[string]any{}, 200)["thread_id"].(string)
			h.json("POST", "/threads/"+rv+"/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)
			paused := h.json("GET", "/threads/"+rv, nil, 200)
			require.Equal(t, "interrupted", paused["status"])
			require.Greater(t, paused["storage"].(map[string]any)["writes"].(float64), 0.0, "%v", paused["storage"])
		})
	}
}

func TestGetThreadWithoutASizerReportsNoStorage(t *testing.T) {
	t.Parallel()
	h := newHarnessOn(t, &countingSaver{Saver: memory.New()}) // no checkpoint.Sizer
	th := h.json("POST", "/threads", map[string]any{}, 200)
	tid := th["thread_id"].(string)
	h.json("POST", "/threads/"+tid+"/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	require.NotContains(t, h.json("GET", "/threads/"+tid, nil, 200), "storage")
}
