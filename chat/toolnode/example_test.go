package toolnode_test

import (
	"context"
	"fmt"
	"strings"

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

// Dispatch sends each call to the tool node as a task of its own; the
// answers come back in the order of the calls, whichever finishes first.
func ExampleDispatch() {
	upper := fn{"upper", func(_ context.Context, in string) (string, error) { return strings.ToUpper(in), nil }}
	g := graph.New(state.NewSchema[convo](msgs))
	g.AddNode("agent", func(ctx context.Context, s convo) (state.Update[convo], error) {
		if last, _ := chat.Last(s.Messages); last.Role == "tool" {
			return state.Writes(msgs.Set([]chat.Message{chat.AI("done")})), nil
		}
		return state.Writes(msgs.Set([]chat.Message{chat.AI("",
			chat.Call("call_1", "upper", `{"input":"one"}`),
			chat.Call("call_2", "upper", `{"input":"two"}`))})), nil
	})
	g.AddNode("tools", toolnode.New(msgs, []tools.Tool{upper}))
	g.AddEdge(graph.Start, "agent")
	g.AddConditionalEdges("agent", toolnode.Dispatch(msgs, "tools", graph.End), "tools", graph.End)
	g.AddEdge("tools", "agent")
	app, err := g.Compile()
	if err != nil {
		panic(err)
	}
	var tasks int
	var last convo
	for ev, err := range app.Stream(context.Background(), state.Writes(msgs.Set([]chat.Message{chat.Human("shout")})),
		graph.StreamModes(graph.Updates, graph.Values)) {
		if err != nil {
			panic(err)
		}
		switch {
		case ev.Mode == graph.Updates && ev.Node == "tools":
			tasks++
		case ev.Mode == graph.Values:
			last = ev.State
		}
	}
	for _, m := range last.Messages {
		if r, ok := m.ToolResponse(); ok {
			fmt.Println(r.ToolCallID, r.Content)
		}
	}
	fmt.Println("tool tasks:", tasks)
	// Output:
	// call_1 ONE
	// call_2 TWO
	// tool tasks: 2
}
