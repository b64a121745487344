package chat_test

import (
	"fmt"

	"github.com/stategraph/stategraph/chat"
)

// The reducer appends, replaces by id and removes, as LangGraph's
// add_messages does.
func ExampleAdd() {
	h := chat.Add(nil, []chat.Message{chat.Human("hi").WithID("1"), chat.AI("hello").WithID("2")})
	h = chat.Add(h, []chat.Message{chat.AI("hello there").WithID("2"), chat.Human("bye")})
	h = chat.Add(h, []chat.Message{chat.Remove("1")})
	for _, m := range h {
		fmt.Println(m.Role, m.Text())
	}
	// Output:
	// ai hello there
	// human bye
}
