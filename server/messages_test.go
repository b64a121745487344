package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/chatdemo"
	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newChatHarness serves the chat assistant (internal/chatdemo: the
// prebuilt agent on the scripted model) as "chat".
func newChatHarness(t *testing.T) *harness {
	a := chatdemo.Agent(chatdemo.Scripted{})
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()), graph.WithName("chat"))
	require.NoError(t, err)
	srv, err := server.New([]server.Graph{server.Register("chat", app)})
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv)}
	t.Cleanup(func() {
		h.http.Close()
		require.NoError(t, srv.Close())
	})
	return h
}

type tupleChunk struct {
	Type           string `json:"type"`
	ID             string `json:"id"`
	Content        any    `json:"content"`
	ToolCallID     string `json:"tool_call_id"`
	ToolCallChunks []struct {
		ID, Name, Args string
		Index          int
	} `json:"tool_call_chunks"`
}

// A messages-tuple stream is LangGraph's: [chunk, metadata] pairs whose
// chunks add up, by id, to the messages the run wrote (tool calls as
// tool_call_chunks), with the task's node, step, triggers, namespace and
// the run's tags in the metadata.
func TestMessagesTupleStreamIsLangGraphs(t *testing.T) {
	t.Parallel()
	h := newChatHarness(t)
	thread := h.json("POST", "/threads", map[string]any{}, 200)["thread_id"].(string)
	_, evs := h.stream("/threads/"+thread+"/runs/stream", map[string]any{
		"assistant_id": "chat", "stream_mode": []string{"messages-tuple", "values"},
		"input":  map[string]any{"messages": []any{map[string]any{"type": "human", "content": "What is the weather in Paris?"}}},
		"config": map[string]any{"tags": []string{"web"}},
	})
	contents := map[string]string{}
	calls := map[string][]string{}
	var order []string
	var toolMsgs, lastValues []json.RawMessage
	for _, ev := range evs {
		switch ev.Event {
		case "values":
			var v struct{ Messages []json.RawMessage }
			require.NoError(t, json.Unmarshal(ev.Data, &v))
			lastValues = v.Messages
		case "messages":
			var pair []json.RawMessage
			require.NoError(t, json.Unmarshal(ev.Data, &pair))
			require.Len(t, pair, 2)
			var c tupleChunk
			require.NoError(t, json.Unmarshal(pair[0], &c))
			var meta map[string]any
			require.NoError(t, json.Unmarshal(pair[1], &meta))
			for _, k := range []string{"langgraph_node", "langgraph_step", "langgraph_triggers", "langgraph_checkpoint_ns", "thread_id", "run_id"} {
				assert.Contains(t, meta, k)
			}
			assert.Equal(t, []any{"web"}, meta["tags"])
			if c.Type == "tool" {
				assert.Equal(t, "tools", meta["langgraph_node"])
				assert.Equal(t, []any{"__pregel_push"}, meta["langgraph_triggers"], "a tool call is a Send task")
				toolMsgs = append(toolMsgs, pair[0])
				continue
			}
			require.Equal(t, "AIMessageChunk", c.Type)
			assert.Equal(t, "agent", meta["langgraph_node"])
			if _, seen := contents[c.ID]; !seen {
				order = append(order, c.ID)
			}
			s, _ := c.Content.(string)
			contents[c.ID] += s
			for _, tc := range c.ToolCallChunks {
				calls[c.ID] = append(calls[c.ID], tc.Name+tc.Args)
			}
		}
	}
	require.Len(t, order, 2, "the tool call, then the answer")
	assert.Equal(t, []string{`get_weather{"city":"Paris"}`}, calls[order[0]])
	assert.Equal(t, "Here is what I found: Paris: light rain, 16°C.", contents[order[1]])
	require.Len(t, toolMsgs, 1)
	assert.Contains(t, string(toolMsgs[0]), "light rain")

	// The chunks match the messages the state holds: same ids, content
	// and calls.
	require.Len(t, lastValues, 4)
	var ai, answer tupleChunk
	require.NoError(t, json.Unmarshal(lastValues[1], &ai))
	require.NoError(t, json.Unmarshal(lastValues[3], &answer))
	assert.Equal(t, order, []string{ai.ID, answer.ID})
	assert.Equal(t, contents[order[1]], answer.Content)
}

// A message the server cannot read is a 422 naming its index and field,
// and nothing is stored on the thread.
func TestBadMessageInputIs422AndStoresNothing(t *testing.T) {
	t.Parallel()
	h := newChatHarness(t)
	thread := h.json("POST", "/threads", map[string]any{}, 200)["thread_id"].(string)
	for _, bad := range []struct{ msg, want string }{
		{`{"type":"robot","content":"hi"}`, `unknown message type \"robot\"`},
		{`{"type":"tool","content":"sunny"}`, `tool_call_id`},
		{`{"type":"ai","content":"","tool_calls":[{"id":"c","name":"f","args":"{}"}]}`, `tool_calls[0].args`},
		{`{"type":"human","content":7}`, `content`},
	} {
		code, body := h.do("POST", "/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":[{"type":"human","content":"ok"},`+bad.msg+`]}}`)
		assert.Equal(t, 422, code, "%s", body)
		assert.Contains(t, string(body), `field \"messages\" [1]`)
		assert.Contains(t, string(body), bad.want)
	}
	hist := h.list("POST", "/threads/"+thread+"/history", map[string]any{})
	assert.Empty(t, hist, "nothing stored")
}

// A single message, not in a list, is the input LangGraph's add_messages
// takes as a list of one: the run answers it; a bad single message is a
// 422 naming the field.
func TestASingleMessageInputIsAListOfOne(t *testing.T) {
	t.Parallel()
	h := newChatHarness(t)
	thread := h.json("POST", "/threads", map[string]any{}, 200)["thread_id"].(string)
	out := h.json("POST", "/threads/"+thread+"/runs/wait", map[string]any{
		"assistant_id": "chat",
		"input":        map[string]any{"messages": map[string]any{"role": "user", "content": "What is the weather in Paris?"}},
	}, 200)
	msgs, _ := out["messages"].([]any)
	require.Len(t, msgs, 4, "the question, the tool call, its result and the answer")
	first := msgs[0].(map[string]any)
	assert.Equal(t, "human", first["type"])
	assert.Equal(t, "What is the weather in Paris?", first["content"])
	assert.NotEmpty(t, first["id"])

	code, body := h.do("POST", "/threads/"+thread+"/runs/wait", `{"assistant_id":"chat","input":{"messages":{"type":"tool","content":"sunny"}}}`)
	assert.Equal(t, 422, code, "%s", body)
	assert.Contains(t, string(body), `tool_call_id`)
}

// The messages stream (LangGraph's server's, which the JS client's
// "messages" mode reads) carries whole messages: each message of the
// thread once as messages/complete — the question, the AI message with
// its tool calls, the tool result, the answer — with a streamed message's
// metadata (messages/metadata, by its id) and the message so far
// (messages/partial) before its complete.
func TestMessagesStreamSendsWholeMessages(t *testing.T) {
	t.Parallel()
	h := newChatHarness(t)
	thread := h.json("POST", "/threads", map[string]any{}, 200)["thread_id"].(string)
	_, evs := h.stream("/threads/"+thread+"/runs/stream", map[string]any{
		"assistant_id": "chat", "stream_mode": "messages",
		"input": map[string]any{"messages": []any{map[string]any{"type": "human", "content": "What is the weather in Paris?"}}},
	})
	var complete []map[string]any
	partial := map[string]string{}
	meta := map[string]map[string]any{}
	var partialBeforeComplete []string
	for _, ev := range evs {
		switch ev.Event {
		case "messages/metadata":
			for id, m := range decode[map[string]map[string]map[string]any](t, ev.Data) {
				meta[id] = m["metadata"]
			}
		case "messages/partial":
			ms := decode[[]map[string]any](t, ev.Data)
			require.Len(t, ms, 1)
			id := ms[0]["id"].(string)
			require.Contains(t, meta, id, "metadata comes first")
			assert.Equal(t, "ai", ms[0]["type"])
			assert.True(t, strings.HasPrefix(ms[0]["content"].(string), partial[id]), "a partial holds the message so far")
			partial[id] = ms[0]["content"].(string)
			partialBeforeComplete = append(partialBeforeComplete, id)
		case "messages/complete":
			complete = append(complete, decode[[]map[string]any](t, ev.Data)...)
		case "messages":
			t.Fatalf("unexpected event %s", ev.Event)
		}
	}
	st := h.json("GET", "/threads/"+thread+"/state", nil, 200)
	want := st["values"].(map[string]any)["messages"].([]any)
	require.Len(t, want, 4)
	require.Len(t, complete, 4, "each message once, whole")
	for i := range want {
		assert.Equal(t, want[i], any(complete[i]), "message %d as the state holds it", i)
	}
	assert.Equal(t, "get_weather", complete[1]["tool_calls"].([]any)[0].(map[string]any)["name"])
	assert.Equal(t, "tool", complete[2]["type"])
	answer := complete[3]["id"].(string)
	require.NotEmpty(t, partialBeforeComplete)
	assert.Equal(t, answer, partialBeforeComplete[len(partialBeforeComplete)-1])
	assert.Equal(t, complete[3]["content"], partial[answer], "the partials add up to the answer")
	assert.Equal(t, "agent", meta[answer]["langgraph_node"])
	for _, k := range []string{"langgraph_step", "langgraph_triggers", "langgraph_checkpoint_ns", "thread_id", "run_id"} {
		assert.Contains(t, meta[answer], k)
	}
}
