package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upper is an agent that answers a message's text in capitals, in one
// completed task; task "missing" is unknown.
type upper struct{}

func (upper) task(p a2a.MessageSendParams) *a2a.Task {
	var b strings.Builder
	for _, part := range p.Message.Parts {
		b.WriteString(strings.ToUpper(part.Text))
	}
	return &a2a.Task{Kind: "task", ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Parts: []a2a.Part{a2a.TextPart(b.String())}}}}
}

func (u upper) Send(_ context.Context, p a2a.MessageSendParams) (*a2a.Task, error) {
	return u.task(p), nil
}

func (u upper) Stream(_ context.Context, p a2a.MessageSendParams, emit func(any) error) error {
	t := u.task(p)
	if err := emit(&a2a.Task{Kind: "task", ID: t.ID, ContextID: t.ContextID, Status: a2a.TaskStatus{State: a2a.StateWorking}}); err != nil {
		return err
	}
	if strings.Contains(t.Artifacts[0].Parts[0].Text, "BREAK") {
		return errors.New("the agent broke mid-stream")
	}
	return emit(&a2a.TaskStatusUpdateEvent{Kind: "status-update", TaskID: t.ID, ContextID: t.ContextID, Status: t.Status, Final: true})
}

func (upper) Task(_ context.Context, p a2a.TaskQueryParams) (*a2a.Task, error) {
	return nil, a2a.Errorf(a2a.CodeTaskNotFound, "no task %q", p.ID)
}

func (upper) Cancel(_ context.Context, p a2a.TaskIDParams) (*a2a.Task, error) {
	return nil, a2a.Errorf(a2a.CodeTaskNotCancelable, "task %q is done", p.ID)
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *a2a.Error      `json:"error"`
}

func post(t *testing.T, srv *httptest.Server, body string) rpcReply {
	t.Helper()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var r rpcReply
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	return r
}

const helloParams = `{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}`

func TestHandlerAnswersEachMethodOrItsJSONRPCError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(a2a.Handler(upper{}))
	t.Cleanup(srv.Close)
	cases := []struct {
		name, body string
		code       int    // the error's code; 0 for a result
		msg        string // in the error's message
	}{
		{"not JSON", `{`, a2a.CodeParseError, "not JSON"},
		{"not JSON-RPC 2.0", `{"jsonrpc":"1.0","id":1,"method":"tasks/get"}`, a2a.CodeInvalidRequest, `jsonrpc "1.0"`},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tasks/nope","params":{}}`, a2a.CodeMethodNotFound, `"tasks/nope"`},
		{"push notifications", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{}}`, a2a.CodeUnsupportedOperation, "not supported"},
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"message/send"}`, a2a.CodeInvalidParams, "params are missing"},
		{"no parts", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m9","parts":[]}}}`, a2a.CodeInvalidParams, `message "m9" has no parts`},
		{"file part", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m9","parts":[{"kind":"file","file":{"uri":"x"}}]}}}`, a2a.CodeInvalidParams, `part 0 is of kind "file"`},
		{"task id missing", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}`, a2a.CodeInvalidParams, "params.id is missing"},
		{"agent's error", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"t1"}}`, a2a.CodeTaskNotCancelable, `task "t1" is done`},
		{"agent's not found", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t2"}}`, a2a.CodeTaskNotFound, `no task "t2"`},
		{"send", `{"jsonrpc":"2.0","id":"r7","method":"message/send","params":` + helloParams + `}`, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := post(t, srv, c.body)
			if c.code == 0 {
				require.Nil(t, r.Error)
				assert.JSONEq(t, `"r7"`, string(r.ID), "the reply carries the request's id")
				var task a2a.Task
				require.NoError(t, json.Unmarshal(r.Result, &task))
				assert.Equal(t, "HELLO", task.Artifacts[0].Parts[0].Text)
				return
			}
			require.NotNil(t, r.Error, "%s", r.Result)
			assert.Equal(t, c.code, r.Error.Code)
			assert.Contains(t, r.Error.Message, c.msg)
		})
	}
}

func TestHandlerRefusesAGet(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	a2a.Handler(upper{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.MethodPost, rec.Header().Get("Allow"))
}

// sse reads a message/stream answer's events.
func sse(t *testing.T, srv *httptest.Server, text string) []rpcReply {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":3,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"` + text + `"}]}}}`
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var out []rpcReply
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var r rpcReply
			require.NoError(t, json.Unmarshal([]byte(data), &r))
			out = append(out, r)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func TestHandlerStreamsEventsAsSSEAndEndsAFailedStreamWithAnError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(a2a.Handler(upper{}))
	defer srv.Close()

	events := sse(t, srv, "hi")
	require.Len(t, events, 2)
	var kinds []string
	for _, e := range events {
		require.Nil(t, e.Error)
		var k struct{ Kind string }
		require.NoError(t, json.Unmarshal(e.Result, &k))
		kinds = append(kinds, k.Kind)
	}
	assert.Equal(t, []string{"task", "status-update"}, kinds)
	var last a2a.TaskStatusUpdateEvent
	require.NoError(t, json.Unmarshal(events[1].Result, &last))
	assert.True(t, last.Final)
	assert.Equal(t, a2a.StateCompleted, last.Status.State)

	broken := sse(t, srv, "break")
	require.Len(t, broken, 2)
	require.NotNil(t, broken[1].Error)
	assert.Equal(t, a2a.CodeInternal, broken[1].Error.Code)
	assert.Contains(t, broken[1].Error.Message, "broke mid-stream")
}

func TestTaskStateFinalHoldsForStatesAStreamEndsAt(t *testing.T) {
	t.Parallel()
	for s, final := range map[a2a.TaskState]bool{
		a2a.StateSubmitted: false, a2a.StateWorking: false, a2a.StateInputRequired: true,
		a2a.StateCompleted: true, a2a.StateCanceled: true, a2a.StateFailed: true, a2a.StateRejected: true,
	} {
		assert.Equal(t, final, s.Final(), s)
	}
}

func TestMessageSendParamsBlockByDefault(t *testing.T) {
	t.Parallel()
	no := false
	assert.True(t, a2a.MessageSendParams{}.Blocking())
	assert.True(t, a2a.MessageSendParams{Configuration: &a2a.MessageSendConfiguration{}}.Blocking())
	assert.False(t, a2a.MessageSendParams{Configuration: &a2a.MessageSendConfiguration{Blocking: &no}}.Blocking())
}

func TestDataPartWrapsWhatIsNotAnObjectAndValueUnwrapsIt(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`{"a":1}`, ` {"a":1}`, `true`, `"yes"`, `[1,2]`, `null`, `3`} {
		p := a2a.DataPart(json.RawMessage(v))
		assert.JSONEq(t, v, string(p.Value()), v)
		var obj map[string]any
		require.NoError(t, json.Unmarshal(p.Data, &obj), "A2A 0.3 wants an object: %s", p.Data)
		_, wrapped := p.Metadata[a2a.DataPartCompat]
		assert.Equal(t, !strings.HasPrefix(strings.TrimSpace(v), "{"), wrapped, v)
	}
	// A part as it arrives in JSON, wrapped by a client.
	var in a2a.Part
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"data","data":{"value":false},"metadata":{"data_part_compat":true}}`), &in))
	assert.JSONEq(t, `false`, string(in.Value()))
}
