package chat_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stategraph/stategraph/chat"
)

// BenchmarkDecodeHistory decodes a 400-message history (a question, a
// tool call, its answer and a reply, 100 times) as a saver's read does.
func BenchmarkDecodeHistory(b *testing.B) {
	var h []chat.Message
	for i := range 100 {
		h = append(h, chat.Human(fmt.Sprintf("Question %d: what do the facts say?", i)).WithID(fmt.Sprintf("h%d", i)),
			chat.AI("", chat.Call(fmt.Sprintf("c%d", i), "lookup", `{"input":"the facts"}`)).WithID(fmt.Sprintf("a%d", i)),
			chat.ToolResult(fmt.Sprintf("c%d", i), "lookup", "The facts: a fact, a fact.").WithID(fmt.Sprintf("t%d", i)),
			chat.AI("Here is the answer, from the lookup. Here is the answer, from the lookup.").WithID(fmt.Sprintf("r%d", i)))
	}
	data, err := json.Marshal(h)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var out []chat.Message
		if err := json.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
}
