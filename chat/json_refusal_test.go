package chat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusals are messages the decoder must refuse, with the field it names.
var refusals = []struct {
	name, in, field string
}{
	{"no type", `{"content":"hi"}`, "type"},
	{"unknown type", `{"type":"robot","content":"hi"}`, "type"},
	{"unknown role", `{"role":"bot","content":"hi"}`, "role"},
	{"type not a string", `{"type":7,"content":"hi"}`, "type"},
	{"tool without tool_call_id", `{"type":"tool","content":"sunny"}`, "tool_call_id"},
	{"tool with an unknown status", `{"type":"tool","content":"x","tool_call_id":"c","status":"meh"}`, "status"},
	{"args a string", `{"type":"ai","content":"","tool_calls":[{"id":"c","name":"f","args":"{}"}]}`, "tool_calls[0].args"},
	{"args a list", `{"type":"ai","content":"","tool_calls":[{"id":"c","name":"f","args":[1]}]}`, "tool_calls[0].args"},
	{"args missing", `{"type":"ai","content":"","tool_calls":[{"id":"c","name":"f"}]}`, "tool_calls[0].args"},
	{"openai arguments not an object", `{"role":"assistant","content":"","tool_calls":[{"id":"c","function":{"name":"f","arguments":"[1,2]"}}]}`, "tool_calls[0].function.arguments"},
	{"tool call without a name", `{"type":"ai","content":"","tool_calls":[{"id":"c","args":{}}]}`, "tool_calls[0].name"},
	{"tool_calls not a list", `{"type":"ai","content":"","tool_calls":{"id":"c"}}`, "tool_calls"},
	{"content a number", `{"type":"human","content":42}`, "content"},
	{"content an object", `{"type":"human","content":{"text":"hi"}}`, "content"},
	{"block without a type", `{"type":"human","content":[{"text":"hi"}]}`, "content[0].type"},
	{"block of an unknown type", `{"type":"human","content":["ok",{"type":"video","url":"x"}]}`, "content[1].type"},
	{"text block without text", `{"type":"human","content":[{"type":"text"}]}`, "content[0].text"},
	{"block a number", `{"type":"human","content":[1]}`, "content[0]"},
	{"base64 without a MIME type", `{"type":"human","content":[{"type":"image","source_type":"base64","data":"AQI="}]}`, "content[0].mime_type"},
	{"data not base64", `{"type":"human","content":[{"type":"file","source_type":"base64","mime_type":"application/pdf","data":"%%"}]}`, "content[0].data"},
	{"tool calls on a human message", `{"type":"human","content":"hi","tool_calls":[{"id":"c","name":"f","args":{}}]}`, "tool_calls"},
	{"remove without an id", `{"type":"remove"}`, "id"},
	{"id not a string", `{"type":"human","content":"hi","id":5}`, "id"},
	{"additional_kwargs not an object", `{"type":"human","content":"hi","additional_kwargs":[]}`, "additional_kwargs"},
	{"usage_metadata of the wrong shape", `{"type":"ai","content":"hi","usage_metadata":{"input_tokens":"many"}}`, "usage_metadata"},
	{"a number", `12`, ""},
	{"a list not a pair", `["user"]`, ""},
	{"an unknown constructor", `{"lc":1,"type":"constructor","id":["x","FunctionMessage"],"kwargs":{"content":"x"}}`, "id"},
	{"stored data not an object", `{"type":"human","data":"hi"}`, "data"},
	{"thinking without its text", `{"type":"ai","content":[{"type":"thinking","signature":"s"}]}`, "content[0].thinking"},
	{"thinking not a string", `{"type":"ai","content":["ok",{"type":"thinking","thinking":["a"]}]}`, "content[1].thinking"},
	{"signature not a string", `{"type":"ai","content":[{"type":"thinking","thinking":"t","signature":5}]}`, "content[0].signature"},
	{"reasoning not a string", `{"type":"ai","content":[{"type":"reasoning","reasoning":5}]}`, "content[0].reasoning"},
	{"reasoning summary not a list", `{"type":"ai","content":[{"type":"reasoning","summary":"s"}]}`, "content[0].summary"},
	{"redacted thinking without data", `{"type":"ai","content":[{"type":"redacted_thinking"}]}`, "content[0].data"},
}

func TestMessageJSONRefusesBadMessagesByField(t *testing.T) {
	t.Parallel()
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m chat.Message
			err := json.Unmarshal([]byte(tc.in), &m)
			require.ErrorIs(t, err, chat.ErrBadMessage)
			var me *chat.MessageError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tc.field, me.Field)
			assert.Equal(t, chat.Message{}, m, "nothing is decoded")
		})
	}
}

// A refused message in a list is named by its index, through
// DecodeMessages and through a field write as the server decodes one.
func TestRefusedMessageIsNamedByIndex(t *testing.T) {
	t.Parallel()
	in := `[{"type":"human","content":"hi"},{"type":"ai","content":"","tool_calls":[{"id":"c","name":"f","args":"x"}]}]`
	_, err := chat.DecodeMessages([]byte(in))
	require.ErrorContains(t, err, `message 1: chat: bad message: field "tool_calls[0].args"`)

	sc := state.NewSchema[convo](convoMessages)
	_, err = sc.DecodeWrite("messages", []byte(in), checkpoint.JSON)
	require.ErrorContains(t, err, `field "messages" [1]: chat: bad message: field "tool_calls[0].args"`)
}

// Through a graph, a refused input stores nothing.
func TestRefusedInputStoresNothing(t *testing.T) {
	t.Parallel()
	saver := memory.New()
	g := graph.New(state.NewSchema[convo](convoMessages))
	g.AddNode("echo", func(ctx context.Context, s convo) (state.Update[convo], error) { return state.Update[convo]{}, nil })
	g.AddEdge(graph.Start, "echo").AddEdge("echo", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = app.Schema().DecodeWrite("messages", []byte(`[{"type":"tool","content":"x"}]`), checkpoint.JSON)
	require.ErrorIs(t, err, chat.ErrBadMessage)
	for _, err := range app.History(context.Background(), graph.WithThread("t")) {
		require.NoError(t, err)
		t.Fatal("a checkpoint was stored")
	}
}

// A single message, not in a list, is a list of one — through
// DecodeMessages and as a messages field's write (the server's input), as
// LangGraph's add_messages coerces it; a bad one is refused by its field.
func TestSingleMessageDecodesAsAListOfOne(t *testing.T) {
	t.Parallel()
	got, err := chat.DecodeMessages([]byte(` {"role":"user","content":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, []chat.Message{chat.Human("hi")}, got)

	sc := state.NewSchema[convo](convoMessages)
	for _, in := range []string{`{"role":"user","content":"hi"}`, ` {"type":"human","content":"hi"}`, `"hi"`, `{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"hi"}}`} {
		w, err := sc.DecodeWrite("messages", []byte(in), checkpoint.JSON)
		require.NoError(t, err, in)
		var s convo
		ap := sc.NewApplier()
		require.NoError(t, ap.Add("input", []state.Write[convo]{w}))
		_, err = ap.Apply(&s, false)
		require.NoError(t, err)
		require.Len(t, s.Messages, 1, in)
		assert.Equal(t, chat.Human("hi").WithID(s.Messages[0].ID), s.Messages[0], in)
	}
	_, err = sc.DecodeWrite("messages", []byte(`{"type":"tool","content":"x"}`), checkpoint.JSON)
	require.ErrorIs(t, err, chat.ErrBadMessage)
	require.ErrorContains(t, err, `field "messages": chat: bad message: field "tool_call_id"`)
	_, err = sc.DecodeWrite("messages", []byte(`42`), checkpoint.JSON)
	require.ErrorIs(t, err, chat.ErrBadMessage)
}
