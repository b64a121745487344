package history_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/history"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
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

// A graph that keeps its history short: before the model node, a summarise
// node folds everything but the last four messages into a summary.
func ExampleSummarizeNode() {
	model := &summarizer{}
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("summarize", history.SummarizeNode(msgs, model, history.Summary{
		Window: history.Window{MaxMessages: 4, KeepSystem: true},
	}))
	g.AddNode("model", func(ctx context.Context, s convo) (state.Update[convo], error) {
		return state.Writes(msgs.Set([]chat.Message{chat.AI("noted").WithID("reply")})), nil
	})
	g.AddEdge(graph.Start, "summarize").AddEdge("summarize", "model").AddEdge("model", graph.End)
	app, err := g.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set(long(2))))
	if err != nil {
		panic(err)
	}
	fmt.Println(ids(out.Messages))
	// Output:
	// s history-summary c1 t1 a1 reply
}
