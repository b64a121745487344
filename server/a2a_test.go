package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/a2a"
	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a2aCall sends one JSON-RPC request to /a2a/{agent} and decodes the
// answer: the task, or the JSON-RPC error.
func (h *harness) a2aCall(t *testing.T, agent, method string, params any) (*a2a.Task, *a2a.Error) {
	t.Helper()
	code, body := h.do("POST", "/a2a/"+agent, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.Equal(t, http.StatusOK, code, "%s", body)
	var r struct {
		Result *a2a.Task  `json:"result"`
		Error  *a2a.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &r), "%s", body)
	return r.Result, r.Error
}

func a2aMessage(parts ...a2a.Part) map[string]any {
	return map[string]any{"message": a2a.Message{Kind: "message", MessageID: "m1", Role: "user", Parts: parts}}
}

func TestA2AContextIsAThreadAndTaskIsARun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithA2A())
	task, rpcErr := h.a2aCall(t, "echo", "message/send", a2aMessage(a2a.DataPart(json.RawMessage(`{"input":"go"}`))))
	require.Nil(t, rpcErr)
	require.Equal(t, a2a.StateCompleted, task.Status.State)
	runs := h.list("GET", "/threads/"+task.ContextID+"/runs", nil)
	require.Len(t, runs, 1)
	assert.Equal(t, task.ContextID+":"+runs[0]["run_id"].(string), task.ID)
	assert.Equal(t, "success", runs[0]["status"])
	state := h.json("GET", "/threads/"+task.ContextID+"/state", nil, 200)
	assert.Equal(t, []any{"echo: go"}, state["values"].(map[string]any)["replies"])
}

func TestA2ARefusesWhatItCannotServeNamingIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithA2A())
	done, rpcErr := h.a2aCall(t, "echo", "message/send", a2aMessage(a2a.DataPart(json.RawMessage(`{"input":"x"}`))))
	require.Nil(t, rpcErr)

	cases := []struct {
		name, agent, method string
		params              any
		code                int
		msg                 string
	}{
		// Text alone is a user message in "messages", which echo lacks.
		{"text to a graph without messages", "echo", "message/send", a2aMessage(a2a.TextPart("hi")), a2a.CodeInvalidParams, `"messages"`},
		{"a context that does not exist", "echo", "message/send", map[string]any{"message": a2a.Message{Kind: "message", MessageID: "m2", Role: "user", ContextID: "nope", Parts: []a2a.Part{a2a.TextPart("hi")}}}, a2a.CodeInvalidParams, `no context "nope"`},
		{"a task id that is not thread:run", "echo", "tasks/get", a2a.TaskQueryParams{ID: "nope"}, a2a.CodeTaskNotFound, `no task "nope"`},
		{"another agent's task", "review", "tasks/get", a2a.TaskQueryParams{ID: done.ID}, a2a.CodeTaskNotFound, `not a task of agent`},
		{"cancelling a finished task", "echo", "tasks/cancel", a2a.TaskIDParams{ID: done.ID}, a2a.CodeTaskNotCancelable, "not pending or running"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, rpcErr := h.a2aCall(t, c.agent, c.method, c.params)
			require.NotNil(t, rpcErr)
			assert.Equal(t, c.code, rpcErr.Code)
			assert.Contains(t, rpcErr.Message, c.msg)
		})
	}
	// The refused first message left no thread behind: only done's.
	_, count := h.do("POST", "/threads/count", map[string]any{})
	assert.Equal(t, "1", strings.TrimSpace(string(count)))

	code, body := h.do("POST", "/a2a/nope", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`)
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, `a2a: no assistant "nope"`, decode[map[string]string](t, body)["detail"])
	code, body = h.do("GET", "/.well-known/agent-card.json", nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, string(body), "assistant_id")
}

func TestA2AIsServedOnlyWithTheOption(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	code, _ := h.do("POST", "/a2a/echo", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`)
	assert.Equal(t, http.StatusNotFound, code)
	code, _ = h.do("GET", "/a2a/echo/.well-known/agent-card.json", nil)
	assert.Equal(t, http.StatusNotFound, code)
}

func TestA2AClientLeavingAStreamCancelsItsTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, server.WithA2A())
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{}}]}}}`
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", h.http.URL+"/a2a/gate", strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	// The first event is the task; the gate's node then waits.
	sc := bufio.NewScanner(resp.Body)
	var task a2a.Task
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var r struct{ Result a2a.Task }
			require.NoError(t, json.Unmarshal([]byte(data), &r))
			task = r.Result
			break
		}
	}
	require.NotEmpty(t, task.ID)
	<-h.gates.ch // the node is waiting
	cancel()     // the client leaves

	tid, rid, _ := strings.Cut(task.ID, ":")
	h.json("GET", "/threads/"+tid+"/runs/"+rid+"/join", nil, 200)
	got, rpcErr := h.a2aCall(t, "gate", "tasks/get", a2a.TaskQueryParams{ID: task.ID})
	require.Nil(t, rpcErr)
	assert.Equal(t, a2a.StateCanceled, got.Status.State)
}

func TestA2AOnAnAPIOnlyReplicaRunsOnTheWorkers(t *testing.T) {
	t.Parallel()
	rs := newReplicasWith(t, []int{0, 2}, func(int) []server.Option { return []server.Option{server.WithA2A()} })
	task, rpcErr := rs[0].a2aCall(t, "review", "message/send", a2aMessage(a2a.DataPart(json.RawMessage(`{"topic":"replicas"}`))))
	require.Nil(t, rpcErr)
	require.Equal(t, a2a.StateInputRequired, task.Status.State)
	msg := a2a.Message{Kind: "message", MessageID: "m2", Role: "user", ContextID: task.ContextID, Parts: []a2a.Part{a2a.TextPart("yes")}}
	done, rpcErr := rs[0].a2aCall(t, "review", "message/send", map[string]any{"message": msg})
	require.Nil(t, rpcErr)
	require.Equal(t, a2a.StateCompleted, done.Status.State)
	assert.Contains(t, string(done.Artifacts[0].Parts[0].Data), `"approved":true`)

	// message/stream reads the node updates from the cluster's event log.
	code, body := rs[0].do("POST", "/a2a/echo", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m3","role":"user","parts":[{"kind":"data","data":{"input":"streamed"}}]}}}`)
	require.Equal(t, http.StatusOK, code)
	var kinds []string
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var r struct {
				Result struct {
					Kind   string
					Status struct{ Message *a2a.Message }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(data), &r), data)
			k := r.Result.Kind
			if r.Result.Status.Message != nil {
				k += " " + string(r.Result.Status.Message.Parts[0].Data)
			}
			kinds = append(kinds, k)
		}
	}
	assert.Equal(t, []string{"task", "status-update", `status-update {"respond":{"replies":["echo: streamed"]}}`, "artifact-update", "status-update"}, kinds)
}
