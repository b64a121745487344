package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// What MarshalJSON writes is LangChain's message dict: the fields a
// LangChain client reads, with content a string when it is one text.
func TestMessageJSONIsLangChainsDict(t *testing.T) {
	t.Parallel()
	usage := &chat.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}
	for _, tc := range []struct {
		name string
		msg  chat.Message
		want string
	}{
		{"human", chat.Human("hi").WithID("h1"), `{"type":"human","content":"hi","id":"h1"}`},
		{"system", chat.System("be brief").WithID("s"), `{"type":"system","content":"be brief","id":"s"}`},
		{"ai with tool calls and metadata", func() chat.Message {
			m := chat.AI("let me look", chat.Call("call_1", "get_weather", `{"city": "Paris"}`)).WithID("a")
			m.Usage, m.ResponseMetadata = usage, map[string]json.RawMessage{"model_name": raw(`"gpt-4o"`)}
			return m
		}(), `{"type":"ai","content":"let me look","id":"a","tool_calls":[{"id":"call_1","name":"get_weather","args":{"city":"Paris"},"type":"tool_call"}],"response_metadata":{"model_name":"gpt-4o"},"usage_metadata":{"input_tokens":3,"output_tokens":4,"total_tokens":7}}`},
		{"ai with only a call has empty content and {} args", chat.AI("", chat.Call("c", "now", "")).WithID("a"),
			`{"type":"ai","content":"","id":"a","tool_calls":[{"id":"c","name":"now","args":{},"type":"tool_call"}]}`},
		{"a call whose arguments are not an object is an invalid tool call", chat.AI("", chat.Call("c", "f", `{"x":`)).WithID("a"),
			`{"type":"ai","content":"","id":"a","invalid_tool_calls":[{"id":"c","name":"f","args":"{\"x\":","error":"arguments are not a JSON object","type":"invalid_tool_call"}]}`},
		{"tool", func() chat.Message {
			m := chat.ToolResult("call_1", "get_weather", "sunny").WithID("t")
			m.Status = chat.StatusError
			return m
		}(), `{"type":"tool","content":"sunny","id":"t","name":"get_weather","tool_call_id":"call_1","status":"error"}`},
		{"blocks", chat.Message{ID: "h", Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
			llms.TextContent{Text: "what is this?"},
			llms.ImageURLContent{URL: "https://x/cat.png", Detail: "low"},
			llms.BinaryContent{MIMEType: "image/png", Data: []byte{1, 2}},
			llms.BinaryContent{MIMEType: "application/pdf", Data: []byte{3}},
		}}, `{"type":"human","id":"h","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"https://x/cat.png","detail":"low"}},{"type":"image","source_type":"base64","mime_type":"image/png","data":"AQI="},{"type":"file","source_type":"base64","mime_type":"application/pdf","data":"Aw=="}]}`},
		{"remove", chat.Remove("a"), `{"type":"remove","content":"","id":"a"}`},
		{"remove all", chat.RemoveAll(), `{"type":"remove","content":"","id":"__remove_all__"}`},
		{"name", func() chat.Message { m := chat.Human("hi"); m.Name = "ann"; return m }(), `{"type":"human","content":"hi","name":"ann"}`},
		{"another role is a chat message", chat.Message{Role: "critic", Parts: []llms.ContentPart{llms.TextContent{Text: "meh"}}}, `{"type":"chat","content":"meh","role":"critic"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tc.msg)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			var back chat.Message
			require.NoError(t, json.Unmarshal(b, &back))
			if len(tc.msg.ToolCalls()) == 0 || json.Valid([]byte(tc.msg.ToolCalls()[0].FunctionCall.Arguments)) && tc.msg.ToolCalls()[0].FunctionCall.Arguments != "" {
				b2, err := json.Marshal(back)
				require.NoError(t, err)
				assert.JSONEq(t, string(b), string(b2), "it reads back to what it wrote")
			}
		})
	}
}

// Every form LangGraph's server accepts decodes to the same message.
func TestMessageJSONReadsEveryLangChainForm(t *testing.T) {
	t.Parallel()
	call := chat.Call("call_1", "get_weather", `{"city":"Paris"}`)
	human := chat.Human("hi").WithID("m1")
	aiCall := chat.AI("", call).WithID("m2")
	tool := chat.ToolResult("call_1", "get_weather", "sunny").WithID("m3")
	dev := chat.System("be brief")
	dev.AdditionalKwargs = map[string]json.RawMessage{"__openai_role__": raw(`"developer"`)}
	for _, tc := range []struct {
		name string
		in   string
		want chat.Message
	}{
		{"python dict", `{"type":"human","content":"hi","id":"m1","additional_kwargs":{},"response_metadata":{},"name":null,"example":false}`, human},
		{"openai user", `{"role":"user","content":"hi","id":"m1"}`, human},
		{"a string", `"hi"`, chat.Human("hi")},
		{"a [role, content] pair", `["user","hi"]`, chat.Human("hi")},
		{"stored message", `{"type":"human","data":{"content":"hi","id":"m1","additional_kwargs":{}}}`, human},
		{"js constructor", `{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"hi","id":"m1","additional_kwargs":{},"response_metadata":{}}}`, human},
		{"js chunk constructor", `{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessageChunk"],"kwargs":{"content":"","id":"m2","tool_calls":[{"id":"call_1","name":"get_weather","args":{"city":"Paris"},"type":"tool_call"}],"tool_call_chunks":[{"id":"call_1","name":"get_weather","args":"{\"city\":\"Paris\"}","index":0,"type":"tool_call_chunk"}],"invalid_tool_calls":[]}}`, aiCall},
		{"python ai dict", `{"type":"ai","content":"","id":"m2","tool_calls":[{"name":"get_weather","args":{"city": "Paris"},"id":"call_1","type":"tool_call"}],"invalid_tool_calls":[],"usage_metadata":null}`, aiCall},
		{"openai assistant", `{"role":"assistant","content":null,"id":"m2","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]}`, aiCall},
		{"chunk with only tool_call_chunks", `{"type":"AIMessageChunk","content":"","id":"m2","tool_call_chunks":[{"id":"call_1","name":"get_weather","args":"{\"city\":\"Paris\"}","index":0}]}`, chat.Message{}},
		{"anthropic tool_use block", `{"type":"ai","id":"m2","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}],"tool_calls":[{"name":"get_weather","args":{"city":"Paris"},"id":"call_1"}]}`, aiCall},
		{"tool dict", `{"type":"tool","content":"sunny","id":"m3","name":"get_weather","tool_call_id":"call_1","status":"success","artifact":null}`, tool},
		{"openai tool", `{"role":"tool","content":"sunny","id":"m3","name":"get_weather","tool_call_id":"call_1"}`, tool},
		{"developer", `{"role":"developer","content":"be brief"}`, dev},
		{"remove", `{"type":"remove","id":"m1"}`, chat.Remove("m1")},
		{"remove constructor", `{"lc":1,"type":"constructor","id":["langchain_core","messages","RemoveMessage"],"kwargs":{"id":"__remove_all__"}}`, chat.RemoveAll()},
		{"image blocks", `{"type":"human","content":[{"type":"image_url","image_url":"https://x/a.png"},{"type":"image","source_type":"url","url":"https://x/b.png"},{"type":"image","url":"https://x/c.png"},{"type":"image","base64":"AQI=","mime_type":"image/png"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"Aw=="}},"and text"]}`,
			chat.Message{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
				llms.ImageURLContent{URL: "https://x/a.png"}, llms.ImageURLContent{URL: "https://x/b.png"}, llms.ImageURLContent{URL: "https://x/c.png"},
				llms.BinaryContent{MIMEType: "image/png", Data: []byte{1, 2}}, llms.BinaryContent{MIMEType: "image/jpeg", Data: []byte{3}},
				llms.TextContent{Text: "and text"},
			}}},
		{"unknown keys go to additional_kwargs", `{"type":"ai","content":"ok","id":"m4","refusal":"no","additional_kwargs":{"x":1}}`,
			chat.Message{ID: "m4", Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextContent{Text: "ok"}}, AdditionalKwargs: map[string]json.RawMessage{"x": raw("1"), "refusal": raw(`"no"`)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got chat.Message
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.want.Role == "" {
				// "AIMessageChunk" is not a dict type LangChain reads.
				require.ErrorIs(t, err, chat.ErrBadMessage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestToolCallChunksStandInForMissingToolCalls(t *testing.T) {
	t.Parallel()
	var got chat.Message
	require.NoError(t, json.Unmarshal([]byte(`{"type":"ai","content":"","id":"m2","tool_call_chunks":[{"id":"call_1","name":"get_weather","args":"{\"city\":\"Paris\"}","index":0}]}`), &got))
	assert.Equal(t, chat.AI("", chat.Call("call_1", "get_weather", `{"city":"Paris"}`)).WithID("m2"), got)
}
