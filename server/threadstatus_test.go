package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
)

// The status a search answers is the one a thread's state gives, though
// the search reads no state: the record keeps it from the run's end and
// from every other write of the thread's state.
func TestSearchStatusIsTheStatusOfTheThreadsState(t *testing.T) {
	t.Parallel()
	run := func(h *harness, id string, body map[string]any) {
		h.json("POST", "/threads", map[string]any{"thread_id": id}, 200)
		h.json("POST", "/threads/"+id+"/runs/wait", body, 200)
	}
	echo := func(input string) map[string]any {
		return map[string]any{"assistant_id": "echo", "input": map[string]any{"input": input}}
	}
	tests := []struct {
		name  string
		setup func(h *harness, id string)
		want  string
		// A worker retries a failed execution, so a failed run's thread
		// is not in error yet when the wait answers (as before).
		inProcess bool
	}{
		{"a new thread is idle", func(h *harness, id string) {
			h.json("POST", "/threads", map[string]any{"thread_id": id}, 200)
		}, "idle", false},
		{"a finished run leaves it idle", func(h *harness, id string) { run(h, id, echo("hi")) }, "idle", false},
		{"a failed run leaves it in error", func(h *harness, id string) { run(h, id, echo("fail")) }, "error", true},
		{"an edit clears the error", func(h *harness, id string) {
			run(h, id, echo("fail"))
			h.json("POST", "/threads/"+id+"/state", map[string]any{"values": map[string]any{"input": "edited"}}, 200)
		}, "idle", true},
		{"an interrupt() leaves it interrupted", func(h *harness, id string) {
			run(h, id, map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}})
		}, "interrupted", false},
		{"an edit of an interrupted thread keeps its interrupt", func(h *harness, id string) {
			run(h, id, map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}})
			h.json("POST", "/threads/"+id+"/state", map[string]any{"values": map[string]any{"topic": "rust"}}, 200)
		}, "interrupted", false},
		{"a copy of an interrupted thread is interrupted", func(h *harness, id string) {
			run(h, id+"-from", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}})
			cp := h.json("POST", "/threads/"+id+"-from/copy", nil, 200)
			h.json("PATCH", "/threads/"+cp["thread_id"].(string), map[string]any{"metadata": map[string]any{"copy_of": id}}, 200)
			h.json("DELETE", "/threads/"+id+"-from", nil, 204)
		}, "interrupted", false},
		{"a resumed thread is idle", func(h *harness, id string) {
			run(h, id, map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}})
			h.json("POST", "/threads/"+id+"/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": "yes"}}, 200)
		}, "idle", false},
		{"a breakpoint before a node leaves it interrupted", func(h *harness, id string) {
			run(h, id, map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "interrupt_before": "*"})
		}, "interrupted", false},
		{"a breakpoint after the last node leaves it idle", func(h *harness, id string) {
			run(h, id, map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "interrupt_after": []string{"respond"}})
		}, "idle", false},
	}
	eachRuntime(t, func(t *testing.T, h *harness) {
		for _, tt := range tests {
			if tt.inProcess && h.srv.Worker() != nil {
				continue
			}
			id := "t" + string(rune('a'+len(tt.name)%26)) + tt.name
			tt.setup(h, id)
			found := h.list("POST", "/threads/search", map[string]any{"select": []string{"thread_id", "status"}, "limit": 100})
			got := map[string]any{}
			for _, th := range found {
				got[th["thread_id"].(string)] = th["status"]
			}
			if cps := h.list("POST", "/threads/search", map[string]any{"metadata": map[string]any{"copy_of": id}}); len(cps) == 1 {
				id = cps[0]["thread_id"].(string)
			}
			assert.Equal(t, tt.want, got[id], tt.name)
			assert.Equal(t, tt.want, h.json("GET", "/threads/"+id, nil, 200)["status"], tt.name)
			assert.Len(t, h.list("POST", "/threads/search", map[string]any{"ids": []string{id}, "status": tt.want}), 1, tt.name)
		}

		// A thread with a run in progress is busy, and what its run
		// leaves after.
		h.json("POST", "/threads", map[string]any{"thread_id": "busy"}, 200)
		h.json("POST", "/threads/busy/runs", gateRun("a"), 200)
		release := h.gate()
		found := h.list("POST", "/threads/search", map[string]any{"ids": []string{"busy"}, "select": []string{"status"}})
		require.Len(t, found, 1)
		assert.Equal(t, "busy", found[0]["status"])
		close(release)
		h.json("GET", "/threads/busy/runs/"+h.list("GET", "/threads/busy/runs", nil)[0]["run_id"].(string)+"/join", nil, 200)
		found = h.list("POST", "/threads/search", map[string]any{"ids": []string{"busy"}, "select": []string{"status"}})
		require.Len(t, found, 1)
		assert.Equal(t, "idle", found[0]["status"])
	})
}

// A search that shows or filters by status reads no checkpoint.
func TestSearchStatusReadsNoState(t *testing.T) {
	t.Parallel()
	saver := &countingSaver{Saver: memory.New()}
	h := newHarnessOn(t, saver)
	h.json("POST", "/threads", map[string]any{"thread_id": "a"}, 200)
	h.json("POST", "/threads/a/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)
	h.json("POST", "/threads", map[string]any{"thread_id": "b"}, 200)
	h.json("POST", "/threads/b/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}}, 200)
	before := saver.gets.Load()
	found := h.list("POST", "/threads/search", map[string]any{"select": []string{"thread_id", "status"}})
	assert.Equal(t, []map[string]any{{"thread_id": "b", "status": "idle"}, {"thread_id": "a", "status": "interrupted"}}, found)
	assert.Len(t, h.list("POST", "/threads/search", map[string]any{"status": "interrupted", "select": []string{"thread_id"}}), 1)
	assert.Equal(t, before, saver.gets.Load(), "checkpoint reads by the searches")
}
