package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gateRun(steps ...string) map[string]any {
	return map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": steps}}
}

func withStrategy(body map[string]any, strategy string) map[string]any {
	body["multitask_strategy"] = strategy
	return body
}

func TestRejectOnBusyThreadStoresNothing(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		first := h.json("POST", "/threads/t/runs", gateRun("a"), 200)
		release := h.gate()
		code, body := h.do("POST", "/threads/t/runs", gateRun("b"))
		assert.Equal(t, 409, code, "%s", body)
		assert.Contains(t, detail(t, body), `thread "t"`)
		code, _ = h.do("POST", "/threads/t/state", map[string]any{"values": map[string]any{"steps": []string{"x"}}})
		assert.Equal(t, 409, code, "a state update waits for no one: busy is 409")
		assert.Len(t, h.list("GET", "/threads/t/runs", nil), 1)
		close(release)
		out := h.json("GET", "/threads/t/runs/"+first["run_id"].(string)+"/join", nil, 200)
		assert.Equal(t, []any{"a", "first", "waited"}, out["steps"])
	})
}

func TestEnqueueRunsOneAfterAnother(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		first := h.json("POST", "/threads/t/runs", gateRun("a"), 200)
		release := h.gate()
		second := h.json("POST", "/threads/t/runs", withStrategy(gateRun("b"), "enqueue"), 200)
		assert.Equal(t, "pending", h.json("GET", "/threads/t/runs/"+second["run_id"].(string), nil, 200)["status"])
		close(release)
		close(h.gate())
		out := h.json("GET", "/threads/t/runs/"+second["run_id"].(string)+"/join", nil, 200)
		assert.Equal(t, []any{"a", "first", "waited", "b", "first", "waited"}, out["steps"])
		for _, r := range []map[string]any{first, second} {
			assert.Equal(t, "success", h.json("GET", "/threads/t/runs/"+r["run_id"].(string), nil, 200)["status"])
		}
	})
}

func TestInterruptStrategyStopsTheRunningRunAndKeepsItsWork(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		first := h.json("POST", "/threads/t/runs", gateRun("a"), 200)
		h.gate() // never released: the interrupt cancels it
		second := h.json("POST", "/threads/t/runs", withStrategy(gateRun("b"), "interrupt"), 200)
		close(h.gate())
		out := h.json("GET", "/threads/t/runs/"+second["run_id"].(string)+"/join", nil, 200)
		assert.Equal(t, []any{"a", "first", "b", "first", "waited"}, out["steps"], "the interrupted run's finished steps stay")
		assert.Equal(t, "interrupted", h.json("GET", "/threads/t/runs/"+first["run_id"].(string), nil, 200)["status"])
		assert.Equal(t, "success", h.json("GET", "/threads/t/runs/"+second["run_id"].(string), nil, 200)["status"])
	})
}

func TestRollbackStrategyUndoesTheRunningRun(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		h.json("POST", "/threads/t/runs", gateRun("zero"), 200)
		close(h.gate())
		h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo"}, 422) // wrong graph for the thread
		first := h.json("POST", "/threads/t/runs", withStrategy(gateRun("a"), "enqueue"), 200)
		h.gate()
		second := h.json("POST", "/threads/t/runs", withStrategy(gateRun("b"), "rollback"), 200)
		close(h.gate())
		out := h.json("GET", "/threads/t/runs/"+second["run_id"].(string)+"/join", nil, 200)
		assert.Equal(t, []any{"zero", "first", "waited", "b", "first", "waited"}, out["steps"], "the rolled back run left nothing")
		code, _ := h.do("GET", "/threads/t/runs/"+first["run_id"].(string), nil)
		assert.Equal(t, 404, code, "a rolled back run is deleted")
	})
}

func TestRollbackOfAThreadsFirstRunLeavesItEmpty(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		first := h.json("POST", "/threads/t/runs", gateRun("a"), 200)
		h.gate()
		code, body := h.do("POST", "/threads/t/runs/"+first["run_id"].(string)+"/cancel?wait=1&action=rollback", nil)
		require.Equal(t, 204, code, "%s", body)
		assert.Empty(t, h.list("POST", "/threads/t/history", map[string]any{}))
		assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])
	})
}

func TestCancelRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		action     string
		wantStatus int // of GET run after
		wantSteps  []any
	}{
		{"interrupt", 200, []any{"zero", "first", "waited", "a", "first"}},
		{"rollback", 404, []any{"zero", "first", "waited"}},
	}
	for _, tt := range tests {
		eachRuntimeNamed(t, tt.action, func(t *testing.T, h *harness) {
			h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
			h.json("POST", "/threads/t/runs", gateRun("zero"), 200)
			close(h.gate())
			h.json("GET", "/threads/t/runs/"+h.list("GET", "/threads/t/runs", nil)[0]["run_id"].(string)+"/join", nil, 200)
			run := h.json("POST", "/threads/t/runs", gateRun("a"), 200)
			rid := run["run_id"].(string)
			h.gate()
			code, body := h.do("POST", "/threads/t/runs/"+rid+"/cancel?wait=1&action="+tt.action, nil)
			require.Equal(t, 204, code, "%s", body)
			code, _ = h.do("GET", "/threads/t/runs/"+rid, nil)
			assert.Equal(t, tt.wantStatus, code)
			st := h.json("GET", "/threads/t/state", nil, 200)
			assert.Equal(t, tt.wantSteps, st["values"].(map[string]any)["steps"])
			assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])
			code, _ = h.do("POST", "/threads/t/runs/"+rid+"/cancel", nil)
			if tt.wantStatus == 200 {
				assert.Equal(t, 409, code, "a finished run cannot be cancelled")
			}
		})
	}
}

func TestCancelQueuedRunNeverStartsIt(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		h.json("POST", "/threads/t/runs", gateRun("a"), 200)
		release := h.gate()
		queued := h.json("POST", "/threads/t/runs", withStrategy(gateRun("b"), "enqueue"), 200)
		code, _ := h.do("POST", "/threads/t/runs/"+queued["run_id"].(string)+"/cancel", nil)
		require.Equal(t, 204, code)
		assert.Equal(t, "interrupted", h.json("GET", "/threads/t/runs/"+queued["run_id"].(string), nil, 200)["status"])
		close(release)
		out := h.json("GET", "/threads/t/runs/"+h.list("GET", "/threads/t/runs", nil)[1]["run_id"].(string)+"/join", nil, 200)
		assert.Equal(t, []any{"a", "first", "waited"}, out["steps"])
	})
}

// readEvents reads SSE events from r until n events were read.
func readEvents(t *testing.T, r *bufio.Reader, n int) []sse {
	t.Helper()
	var block strings.Builder
	var out []sse
	for len(out) < n {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if line == "\n" {
			out = append(out, parseSSE(t, block.String())...)
			block.Reset()
			continue
		}
		block.WriteString(line)
	}
	return out
}

func TestClientThatLeavesMidStreamLeavesTheRunGoingAndCanRejoin(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		ctx, cancel := context.WithCancel(context.Background())
		body, _ := json.Marshal(map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": []string{"a"}}, "stream_mode": []string{"updates"}})
		req, err := http.NewRequestWithContext(ctx, "POST", h.http.URL+"/threads/t/runs/stream", strings.NewReader(string(body)))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		release := h.gate()
		got := readEvents(t, bufio.NewReader(resp.Body), 2) // metadata, updates of first
		assert.Equal(t, []string{"metadata", "updates"}, names(got))
		loc := resp.Header.Get("Location")
		cancel()
		resp.Body.Close()

		close(release)
		_, rest := h.stream(loc, nil, "Last-Event-ID", got[1].ID)
		assert.Equal(t, []string{"updates", "end"}, names(rest), "the run went on; the rejoined stream starts after the last event seen")
		assert.JSONEq(t, `{"wait":{"steps":["waited"]}}`, string(rest[0].Data))
		_, all := h.stream(loc, nil)
		assert.Equal(t, []string{"metadata", "updates", "updates", "end"}, names(all), "joined from the start")
	})
}

func TestOnDisconnectCancelStopsTheRun(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		ctx, cancel := context.WithCancel(context.Background())
		body, _ := json.Marshal(map[string]any{"assistant_id": "gate", "input": map[string]any{"steps": []string{"a"}}, "on_disconnect": "cancel"})
		req, err := http.NewRequestWithContext(ctx, "POST", h.http.URL+"/threads/t/runs/stream", strings.NewReader(string(body)))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		h.gate()
		rid := resp.Header.Get("Content-Location")
		cancel()
		resp.Body.Close()
		out := h.json("GET", rid+"/join", nil, 200)
		assert.Equal(t, []any{"a", "first"}, out["steps"])
		assert.Equal(t, "interrupted", h.json("GET", rid, nil, 200)["status"])
	})
}

func TestIdleStreamSendsHeartbeats(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithHeartbeat(time.Millisecond))
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	body, _ := json.Marshal(gateRun("a"))
	resp, err := http.Post(h.http.URL+"/threads/t/runs/stream", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	release := h.gate()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		if line == ": heartbeat\n" {
			break // an SSE comment while the run waits
		}
	}
	close(release)
	rest, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Contains(t, string(rest), "event: end")
}

func TestThreadIsFreeAsSoonAsAWaitOrStreamEnds(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, h *harness) {
		h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
		for i := range 20 {
			h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "w"}}, 200)
			_, evs := h.stream("/threads/t/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "s"}})
			require.Equal(t, "end", evs[len(evs)-1].Event, "round %d", i)
		}
		assert.Equal(t, "idle", h.json("GET", "/threads/t", nil, 200)["status"])
	})
}
