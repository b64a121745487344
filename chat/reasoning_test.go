package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// Reasoning blocks — LangChain's "reasoning" (with its text, or OpenAI's
// summary list), Anthropic's "thinking" with its signature and
// "redacted_thinking" — are kept in the message, in their places, and
// written back as they came; a model is not sent them (Content), as
// langchaingo's parts cannot carry them.
func TestReasoningBlocksRoundTripAndAreNotSentToModels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, out string
		parts         []llms.ContentPart
		texts         []string
	}{
		{
			name:  "langchain reasoning then text",
			in:    `{"type":"ai","content":[{"type":"reasoning","reasoning":"The user greets.","id":"rs_1"},{"type":"text","text":"Hello!"}],"id":"a1"}`,
			out:   `{"type":"ai","content":[{"type":"reasoning","reasoning":"The user greets.","id":"rs_1"},{"type":"text","text":"Hello!"}],"id":"a1"}`,
			parts: []llms.ContentPart{llms.TextContent{Text: "Hello!"}},
			texts: []string{"The user greets."},
		},
		{
			name:  "openai summary",
			in:    `{"type":"ai","content":[{"type":"text","text":"4"},{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"Add "},{"type":"summary_text","text":"2 and 2."}]}],"id":"a2"}`,
			out:   `{"type":"ai","content":[{"type":"text","text":"4"},{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"Add "},{"type":"summary_text","text":"2 and 2."}]}],"id":"a2"}`,
			parts: []llms.ContentPart{llms.TextContent{Text: "4"}},
			texts: []string{"Add 2 and 2."},
		},
		{
			name: "anthropic thinking, redacted thinking and a tool_use block",
			in: `{"type":"ai","id":"a3","content":[{"type":"thinking","thinking":"I need the weather.","signature":"EqQB"},{"type":"redacted_thinking","data":"c2VjcmV0"},` +
				`{"type":"text","text":"Checking."},{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Paris"}}]}`,
			out: `{"type":"ai","content":[{"type":"thinking","thinking":"I need the weather.","signature":"EqQB"},{"type":"redacted_thinking","data":"c2VjcmV0"},{"type":"text","text":"Checking."}],"id":"a3",` +
				`"tool_calls":[{"id":"t1","name":"get_weather","args":{"city":"Paris"},"type":"tool_call"}]}`,
			parts: []llms.ContentPart{llms.TextContent{Text: "Checking."}, chat.Call("t1", "get_weather", `{"city":"Paris"}`)},
			texts: []string{"I need the weather.", ""},
		},
		{
			name:  "only reasoning",
			in:    `{"type":"ai","content":[{"type":"thinking","thinking":"Hmm."}],"id":"a4"}`,
			out:   `{"type":"ai","content":[{"type":"thinking","thinking":"Hmm."}],"id":"a4"}`,
			texts: []string{"Hmm."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m chat.Message
			require.NoError(t, json.Unmarshal([]byte(tc.in), &m))
			require.Len(t, m.Reasoning, len(tc.texts))
			for i, want := range tc.texts {
				assert.Equal(t, want, m.Reasoning[i].Text())
			}
			if tc.parts == nil {
				assert.Empty(t, m.Content().Parts, "a model gets no part")
			} else {
				assert.Equal(t, tc.parts, m.Content().Parts, "a model gets the parts, not the reasoning")
			}
			out, err := json.Marshal(m)
			require.NoError(t, err)
			assert.JSONEq(t, tc.out, string(out))
			var again chat.Message
			require.NoError(t, json.Unmarshal(out, &again))
			assert.Equal(t, m, again, "it reads back the same")
			msgs, err := chat.DecodeMessages([]byte(`[` + tc.in + `]`))
			require.NoError(t, err)
			assert.Equal(t, m, msgs[0])
		})
	}
}
