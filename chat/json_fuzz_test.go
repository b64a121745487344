package chat_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/chat"
)

// FuzzMessageJSON: whatever the bytes, the decoder either refuses them
// with a *MessageError or decodes a message with a role, which encodes
// and decodes back to the same JSON; it never panics and never yields an
// empty message.
func FuzzMessageJSON(f *testing.F) {
	for _, s := range []string{
		`{"type":"human","content":"hi"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{\"a\":1}"}}]}`,
		`{"type":"tool","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":"u"}],"tool_call_id":"c"}`,
		`{"lc":1,"type":"constructor","id":["HumanMessage"],"kwargs":{"content":"x"}}`,
		`{"type":"ai","data":{"content":"x"}}`,
		`{"id":"x","role":"ai","parts":[{"type":"text","text":"t"}]}`,
		`["user","hi"]`, `"hi"`, `{"type":"remove","id":"a"}`,
		`{"type":"human","content":[{"type":"image","source_type":"base64","mime_type":"image/png","data":"AQI="}]}`,
		`{"type":"ai","content":[{"type":"thinking","thinking":"t","signature":"s"},"x",{"type":"reasoning","summary":[]}]}`,
		`{"type":"tool","tool_call_id":"c","content":[{"type":"redacted_thinking","data":"d"},{"type":"text","text":"r"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m chat.Message
		err := json.Unmarshal(data, &m)
		if err != nil {
			var me *chat.MessageError
			var se *json.SyntaxError
			if !errors.As(err, &me) && !errors.As(err, &se) {
				t.Fatalf("refused without a MessageError: %v", err)
			}
			return
		}
		if m.Role == "" {
			t.Fatalf("decoded a message without a role from %q", data)
		}
		b, err := json.Marshal(m)
		if err != nil {
			return // a legacy form the new one cannot hold (a tool call outside an AI message)
		}
		var back chat.Message
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("cannot read back %s: %v", b, err)
		}
		b2, err := json.Marshal(back)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("not stable:\n%s\n%s (%v)", b, b2, err)
		}
	})
}
