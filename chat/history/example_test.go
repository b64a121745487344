package history_test

import (
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/history"
)

// Trim keeps the opening system prompt and the recent turns, never a tool
// answer whose call it cut off.
func ExampleTrim() {
	h := []chat.Message{
		chat.System("be brief"),
		chat.Human("weather?"),
		chat.AI("", chat.Call("1", "weather", "{}")),
		chat.ToolResult("1", "weather", "sunny"),
		chat.AI("Sunny."),
		chat.Human("thanks"),
	}
	for _, m := range history.Trim(h, history.Window{MaxMessages: 4, KeepSystem: true}) {
		fmt.Println(m.Role, m.Text())
	}
	// Output:
	// system be brief
	// ai Sunny.
	// human thanks
}
