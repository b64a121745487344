package toolnode_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/tools"
)

// A model node (here scripted) asks for a tool call; Condition routes to
// the tool node, which answers it; the model node then replies and the
// router ends the run.
func ExampleNew() {
	upper := fn{"upper", func(_ context.Context, in string) (string, error) { return fmt.Sprintf("%q in capitals", in), nil }}
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("agent", func(ctx context.Context, s convo) (state.Update[convo], error) {
		if last, _ := chat.Last(s.Messages); last.Role == "tool" {
			r, _ := last.ToolResponse()
			return state.Writes(msgs.Set([]chat.Message{chat.AI("It is " + r.Content + ".")})), nil
		}
		return state.Writes(msgs.Set([]chat.Message{chat.AI("", chat.Call("call_1", "upper", `{"input":"go"}`))})), nil
	})
	g.AddNode("tools", toolnode.New(msgs, []tools.Tool{upper}))
	g.AddEdge(graph.Start, "agent")
	g.AddConditionalEdges("agent", toolnode.Condition(msgs, "tools"), "tools", graph.End)
	g.AddEdge("tools", "agent")
	app, err := g.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.Human("shout go")})))
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages {
		fmt.Println(m.Role, m.Text(), len(m.ToolCalls()))
	}
	// Output:
	// human shout go 0
	// ai  1
	// tool  0
	// ai It is "go" in capitals. 0
}
