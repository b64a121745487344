package chat

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzFastDecodeMatchesGeneral: whatever decodeFast takes, the general
// decoder reads the same message from it.
func FuzzFastDecodeMatchesGeneral(f *testing.F) {
	for _, s := range []string{
		`{"type":"human","content":"hi","id":"h"}`,
		`{"type":"ai","content":"","id":"a","tool_calls":[{"id":"c","name":"f","args":{ "x" : 1 },"type":"tool_call"}]}`,
		`{"type":"tool","content":"sunny","id":"t","name":"w","tool_call_id":"c","status":"error"}`,
		`{"type":"tool","content":"x","tool_call_id":"c","status":"success"}`,
		`{"type":"system","content":null,"name":null}`,
		`{"type":"ai","content":"hi","extra":1}`,
		`{"Type":"human","content":"hi"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Message
		if !fast.decodeFast(data) {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("fast path took what is not an object: %q", data)
		}
		var general Message
		if err := general.fromDict(obj, ""); err != nil {
			t.Fatalf("fast path took %q, the general decoder refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("%q:\nfast    %#v\ngeneral %#v", data, fast, general)
		}
	})
}
