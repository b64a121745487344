package server_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors LangGraph's get_state(subgraphs=True) through the Agent Server
// API: GET /threads/{id}/state gives a pending subgraph task its
// namespace as "checkpoint"; with ?subgraphs=true its "state" is the
// subgraph's own thread state; POST /threads/{id}/history and
// /state/checkpoint with that checkpoint_ns read the subgraph's
// checkpoints.
func TestThreadStateWithSubgraphsCarriesTheSubgraphsState(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	schema := state.NewSchema(echoInput, echoReplies)
	inner, err := graph.New(schema).
		AddNode("prepare", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			return state.Writes(echoInput.Set(strings.ToUpper(e.Input))), nil
		}).
		AddNode("respond", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			return state.Writes(echoReplies.Set([]string{"echo: " + e.Input})), nil
		}).
		AddEdge(graph.Start, "prepare").AddEdge("prepare", "respond").
		Compile(graph.WithInterruptBefore("respond"))
	require.NoError(t, err)
	outer, err := graph.New(schema).
		AddSubgraph("inner", inner).
		AddEdge(graph.Start, "inner").
		Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("outer", outer)})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv)}
	t.Cleanup(func() { h.http.Close(); srv.Close() })

	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "outer", "input": map[string]any{"input": "hi"}}, 200)

	plain := h.json("GET", "/threads/t/state", nil, 200)
	tasks := plain["tasks"].([]any)
	require.Len(t, tasks, 1)
	task := tasks[0].(map[string]any)
	cp, ok := task["checkpoint"].(map[string]any)
	require.True(t, ok, "a subgraph task names its namespace: %v", task)
	ns := cp["checkpoint_ns"].(string)
	assert.Equal(t, "inner:"+task["id"].(string), ns)
	assert.Equal(t, "t", cp["thread_id"])
	assert.Nil(t, task["state"])

	full := h.json("GET", "/threads/t/state?subgraphs=true", nil, 200)
	task = full["tasks"].([]any)[0].(map[string]any)
	assert.Nil(t, task["checkpoint"])
	sub, ok := task["state"].(map[string]any)
	require.True(t, ok, "the subgraph's state: %v", task)
	assert.Equal(t, map[string]any{"input": "HI", "replies": []any{}}, sub["values"])
	assert.Equal(t, []any{"respond"}, sub["next"])
	assert.Equal(t, ns, sub["checkpoint"].(map[string]any)["checkpoint_ns"])

	hist := h.list("POST", "/threads/t/history", map[string]any{"checkpoint": map[string]any{"checkpoint_ns": ns}})
	require.Len(t, hist, 3, "the subgraph's input, prepare and respond checkpoints")
	for _, st := range hist {
		assert.Equal(t, ns, st["checkpoint"].(map[string]any)["checkpoint_ns"])
	}
	assert.Equal(t, []any{"respond"}, hist[0]["next"])

	at := h.json("POST", "/threads/t/state/checkpoint", map[string]any{"checkpoint": map[string]any{"checkpoint_ns": ns}}, 200)
	assert.Equal(t, sub["values"], at["values"])

	code, body := h.do("GET", "/threads/t/state?subgraphs=maybe", nil)
	assert.Equal(t, 422, code, "%s", body)
	assert.Contains(t, string(body), "subgraphs")
}

// A typed interrupt's answer schema reaches the API as the interrupt's
// "response_schema"; a resume that does not fit it fails the run with an
// InvalidResumeError naming the field, and the thread stays interrupted.
func TestResumeThatDoesNotFitTheInterruptsSchemaIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)
	ints := out["__interrupt__"].([]any)
	require.Len(t, ints, 1)
	assert.Equal(t, map[string]any{"type": "string"}, ints[0].(map[string]any)["response_schema"])
	st := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, map[string]any{"type": "string"}, st["interrupts"].([]any)[0].(map[string]any)["response_schema"])

	failed := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": 42}}, 200)
	e := failed["__error__"].(map[string]any)
	assert.Equal(t, "InvalidResumeError", e["error"])
	assert.Contains(t, e["message"], `of node "review" (step 2): want string, got integer 42`)
	again := h.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, st["checkpoint"], again["checkpoint"], "nothing stored")
	out = h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": "yes"}}, 200)
	assert.Equal(t, true, out["approved"])
}
