package server_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gate waits for the next run of the gate graph to reach its wait node
// and returns the channel that lets it go on.
func (h *harness) gate() chan struct{} {
	h.t.Helper()
	select {
	case release := <-h.gates.ch:
		return release
	case <-time.After(10 * time.Second):
		h.t.Fatal("no run reached the gate")
		return nil
	}
}

func TestRunStreamModes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tests := []struct {
		mode string
		want []string
	}{
		{"values", []string{"values", "values"}},
		{"updates", []string{"updates"}},
		{"custom", []string{"custom"}},
		{"messages-tuple", []string{"messages", "messages"}},
		{"messages", []string{"messages/metadata", "messages/partial", "messages/partial", "messages/complete"}},
		{"tasks", []string{"tasks", "tasks"}},
		{"checkpoints", []string{"checkpoints", "checkpoints", "checkpoints"}},
		{"debug", []string{"debug", "debug", "debug", "debug", "debug"}},
	}
	for _, tt := range tests {
		h.json("POST", "/threads", map[string]any{"thread_id": tt.mode}, 200)
		resp, evs := h.stream("/threads/"+tt.mode+"/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "stream_mode": tt.mode})
		require.GreaterOrEqual(t, len(evs), 2, tt.mode)
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		meta := decode[map[string]any](t, evs[0].Data)
		runID := meta["run_id"].(string)
		assert.Equal(t, "/threads/"+tt.mode+"/runs/"+runID, resp.Header.Get("Content-Location"), tt.mode)
		assert.Equal(t, "/threads/"+tt.mode+"/runs/"+runID+"/stream", resp.Header.Get("Location"), tt.mode)
		assert.Equal(t, "metadata", evs[0].Event)
		assert.Equal(t, "end", evs[len(evs)-1].Event)
		assert.Equal(t, tt.want, names(evs[1:len(evs)-1]), tt.mode)
		for i, ev := range evs {
			assert.Equal(t, strconv.Itoa(i+1), ev.ID, "event ids count from 1")
		}
	}
}

func TestRunStreamPayloads(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	_, evs := h.stream("/threads/t/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"},
		"stream_mode": []string{"updates", "messages", "custom", "tasks"}})
	byName := map[string][]sse{}
	for _, ev := range evs {
		byName[ev.Event] = append(byName[ev.Event], ev)
	}
	assert.JSONEq(t, `{"respond":{"replies":["echo: hi"]}}`, string(byName["updates"][0].Data))
	assert.JSONEq(t, `{"progress":"thinking"}`, string(byName["custom"][0].Data))
	complete := decode[[]map[string]any](t, byName["messages/complete"][0].Data)
	assert.Equal(t, "echo: hi", complete[0]["content"])
	assert.Equal(t, "ai", complete[0]["type"])
	result := decode[map[string]any](t, byName["tasks"][1].Data)
	assert.Equal(t, "respond", result["name"])
	assert.Equal(t, []any{[]any{"replies", []any{"echo: hi"}}}, result["result"])
	assert.JSONEq(t, `{"status":"success","run_id":"`+decode[map[string]any](t, evs[0].Data)["run_id"].(string)+`"}`, string(byName["end"][0].Data))
}

func TestRunWaitAndStatelessRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	assert.Equal(t, map[string]any{"input": "hi", "replies": []any{"echo: hi"}}, out)
	runs := h.list("GET", "/threads/t/runs", nil)
	require.Len(t, runs, 1)
	assert.Equal(t, "success", runs[0]["status"])
	assert.Equal(t, "reject", runs[0]["multitask_strategy"])

	out = h.json("POST", "/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "x"}}, 200)
	assert.Equal(t, []any{"echo: x"}, out["replies"])
	assert.Len(t, h.list("POST", "/threads/search", map[string]any{}), 1, "a stateless run's thread is deleted after it")

	_, evs := h.stream("/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "y"}, "on_completion": "keep"})
	tid := decode[map[string]any](t, evs[0].Data)["thread_id"].(string)
	kept := h.json("GET", "/threads/"+tid, nil, 200)
	assert.Equal(t, []any{"echo: y"}, kept["values"].(map[string]any)["replies"])

	// A failing run: its error in the stream, in wait's answer, in the thread.
	h.json("POST", "/threads", map[string]any{"thread_id": "bad"}, 200)
	out = h.json("POST", "/threads/bad/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "fail"}}, 200)
	assert.Equal(t, "NodeError", out["__error__"].(map[string]any)["error"])
	assert.Contains(t, out["__error__"].(map[string]any)["message"], "echo was asked to fail")
	th := h.json("GET", "/threads/bad", nil, 200)
	assert.Equal(t, "error", th["status"])
	assert.Contains(t, th["error"], "echo was asked to fail")
	_, evs = h.stream("/threads/bad/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "fail"}})
	assert.Equal(t, []string{"metadata", "values", "error", "end"}, names(evs))
	assert.Equal(t, "NodeError", decode[map[string]any](t, evs[2].Data)["error"])
	// A later good run clears the error.
	h.json("POST", "/threads/bad/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "ok"}}, 200)
	assert.Equal(t, "idle", h.json("GET", "/threads/bad", nil, 200)["status"])
	assert.Equal(t, "error", h.list("GET", "/threads/bad/runs", nil)[1]["status"])
}

func TestRefusedRunStoresNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	tests := []struct {
		name   string
		path   string
		body   map[string]any
		code   int
		detail string
	}{
		{"unknown assistant", "/threads/t/runs", map[string]any{"assistant_id": "nope"}, 404, `assistant "nope"`},
		{"no assistant", "/threads/t/runs", map[string]any{}, 422, "assistant_id"},
		{"unknown thread", "/threads/none/runs", map[string]any{"assistant_id": "echo"}, 404, `thread "none"`},
		{"unknown field", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"inptu": "x"}}, 422, `field "inptu"`},
		{"wrong type", "/threads/t/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": 1}}, 422, `field "input"`},
		{"input not an object", "/threads/t/runs", map[string]any{"assistant_id": "echo", "input": "hi"}, 422, "JSON object"},
		{"unknown stream mode", "/threads/t/runs/stream", map[string]any{"assistant_id": "echo", "stream_mode": "bogus"}, 422, "stream_mode"},
		{"unknown strategy", "/threads/t/runs", map[string]any{"assistant_id": "echo", "multitask_strategy": "later"}, 422, "multitask_strategy"},
		{"unknown interrupt node", "/threads/t/runs", map[string]any{"assistant_id": "echo", "interrupt_before": []string{"ghost"}}, 422, `"ghost"`},
		{"nothing to resume", "/threads/t/runs", map[string]any{"assistant_id": "echo", "command": map[string]any{"resume": "yes"}}, 422, "no pending interrupt"},
		{"goto an unknown node", "/threads/t/runs", map[string]any{"assistant_id": "echo", "command": map[string]any{"goto": "ghost"}}, 422, `field "command.goto": no node "ghost" (nodes: respond, __end__)`},
		{"goto the start", "/threads/t/runs", map[string]any{"assistant_id": "echo", "command": map[string]any{"goto": "__start__"}}, 422, `no node "__start__"`},
		{"goto a number", "/threads/t/runs", map[string]any{"assistant_id": "echo", "command": map[string]any{"goto": []any{1}}}, 422, "command.goto[0]"},
		{"bad command update", "/threads/t/runs", map[string]any{"assistant_id": "echo", "command": map[string]any{"update": map[string]any{"x": 1}}}, 422, "command.update.x"},
	}
	for _, tt := range tests {
		code, body := h.do("POST", tt.path, tt.body)
		assert.Equal(t, tt.code, code, "%s: %s", tt.name, body)
		assert.Contains(t, detail(t, body), tt.detail, tt.name)
	}
	assert.Empty(t, h.list("GET", "/threads/t/runs", nil))
	assert.Empty(t, h.list("POST", "/threads/t/history", map[string]any{}))
	th := h.json("GET", "/threads/t", nil, 200)
	assert.Equal(t, map[string]any{}, th["metadata"], "a refused run leaves the thread as it was")
	code, _ := h.do("GET", "/threads/none", nil)
	assert.Equal(t, 404, code)

	out := h.json("POST", "/threads/made/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "x"}, "if_not_exists": "create"}, 200)
	assert.Equal(t, []any{"echo: x"}, out["replies"])
}

func TestBackgroundRunJoinAndGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	run := h.json("POST", "/threads/t/runs", map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": []string{"in"}}, "metadata": map[string]any{"k": "v"}}, 200)
	rid := run["run_id"].(string)
	assert.Equal(t, map[string]any{"k": "v"}, run["metadata"])
	release := h.gate()
	got := h.json("GET", "/threads/t/runs/"+rid, nil, 200)
	assert.Equal(t, "running", got["status"])
	assert.Equal(t, "busy", h.json("GET", "/threads/t", nil, 200)["status"])
	assert.Equal(t, []string{"t"}, threadIDs(h.list("POST", "/threads/search", map[string]any{"status": "busy"})))
	code, _ := h.do("DELETE", "/threads/t/runs/"+rid, nil)
	assert.Equal(t, 409, code, "a running run cannot be deleted")
	close(release)
	out := h.json("GET", "/threads/t/runs/"+rid+"/join", nil, 200)
	assert.Equal(t, []any{"in", "first", "waited"}, out["steps"])
	assert.Equal(t, "success", h.json("GET", "/threads/t/runs/"+rid, nil, 200)["status"])
	assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])
	code, _ = h.do("DELETE", "/threads/t/runs/"+rid, nil)
	assert.Equal(t, 204, code)
	code, _ = h.do("GET", "/threads/t/runs/"+rid, nil)
	assert.Equal(t, 404, code)
}

func threadIDs(ts []map[string]any) []string {
	var out []string
	for _, th := range ts {
		out = append(out, th["thread_id"].(string))
	}
	return out
}
