package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInterruptInStreamAndStateAnsweredByValueOrID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		resume func(id string) any
	}{
		{"by value", func(string) any { return "yes" }},
		{"by interrupt id", func(id string) any { return map[string]any{id: "yes"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
			_, evs := h.stream("/threads/t/runs/stream", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}, "stream_mode": []string{"updates", "values"}})
			require.Equal(t, []string{"metadata", "values", "updates", "values", "updates", "values", "end"}, names(evs))
			upd := decode[map[string][]map[string]any](t, evs[4].Data)["__interrupt__"]
			require.Len(t, upd, 1)
			id := upd[0]["id"].(string)
			assert.Equal(t, map[string]any{"question": "publish?", "draft": "a post about go"}, upd[0]["value"])
			vals := decode[map[string]any](t, evs[5].Data)
			assert.Equal(t, "a post about go", vals["draft"])
			assert.Len(t, vals["__interrupt__"], 1)
			assert.JSONEq(t, `{"run_id":"`+decode[map[string]any](t, evs[0].Data)["run_id"].(string)+`","status":"interrupted"}`, string(evs[6].Data))

			st := h.json("GET", "/threads/t/state", nil, 200)
			assert.Equal(t, []any{"review"}, st["next"])
			task := st["tasks"].([]any)[0].(map[string]any)
			assert.Equal(t, "review", task["name"])
			assert.Equal(t, id, task["interrupts"].([]any)[0].(map[string]any)["id"])
			th := h.json("GET", "/threads/t", nil, 200)
			assert.Equal(t, "interrupted", th["status"])
			assert.Contains(t, th["interrupts"], task["id"])

			out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": tt.resume(id)}}, 200)
			assert.Equal(t, true, out["approved"])
			assert.Equal(t, []any{"answered yes"}, out["notes"])
			assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])
			assert.Empty(t, h.json("GET", "/threads/t/state", nil, 200)["tasks"])
		})
	}
}

func TestInterruptBeforeAndAfterNodes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "interrupt_before": "*"}, 200)
	// As LangGraph's API: a static breakpoint stops the run with no
	// interrupt value ("__interrupt__": []), in the result and the state.
	assert.Equal(t, []any{}, out["__interrupt__"])
	assert.Empty(t, h.json("GET", "/threads/t/state", nil, 200)["interrupts"])
	assert.Equal(t, []any{}, out["replies"], "an append field nothing wrote is the empty list, as in LangGraph")
	assert.Equal(t, []any{"respond"}, h.json("GET", "/threads/t/state", nil, 200)["next"])
	assert.Equal(t, "interrupted", h.json("GET", "/threads/t", nil, 200)["status"])
	// A run with no input goes on from where the thread stopped.
	out = h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": nil}, 200)
	assert.Equal(t, []any{"echo: hi"}, out["replies"])
	assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])

	h.json("POST", "/threads", map[string]any{"thread_id": "u"}, 200)
	out = h.json("POST", "/threads/u/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "x"}, "interrupt_after": []string{"respond"}}, 200)
	assert.Equal(t, []any{"echo: x"}, out["replies"])
	assert.Equal(t, []any{}, out["__interrupt__"])
}

func TestResumeWithUpdateAppliesTheUpdateFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)
	out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": "no", "update": map[string]any{"notes": []string{"edited first"}}}}, 200)
	assert.Equal(t, []any{"edited first", "answered no"}, out["notes"])
	assert.Equal(t, false, out["approved"])
}
