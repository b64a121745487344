package toolnode_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/tools"
)

// A call of send_email waits for a person: the router sends the agent's
// calls to the review node when ReviewTools selects one, and the run
// stops at its interrupt; resumed with an approval, the call runs.
func ExampleReviewNode() {
	type S = convo
	sent := fn{"send_email", func(_ context.Context, in string) (string, error) { return "sent " + in, nil }}
	ts := []tools.Tool{sent}
	g := graph.New(state.NewSchema[S](msgs))
	g.AddNode("agent", func(ctx context.Context, s S) (state.Update[S], error) {
		if last, _ := chat.Last(s.Messages); last.Role == "tool" {
			return state.Writes(msgs.Set([]chat.Message{chat.AI("done")})), nil
		}
		return state.Writes(msgs.Set([]chat.Message{chat.AI("", chat.Call("call_1", "send_email", `{"input":"hello"}`))})), nil
	})
	need := toolnode.ReviewTools("send_email")
	g.AddNode("tools", toolnode.New(msgs, ts))
	g.AddNode("review", toolnode.ReviewNode(msgs, "tools", need), graph.WithDestinations("tools"))
	dispatch := toolnode.Dispatch(msgs, "tools", graph.End)
	g.AddConditionalEdges("agent", func(ctx context.Context, s S) (graph.Route[S], error) {
		if toolnode.NeedsReview(msgs.Get(s), need) {
			return graph.Route[S]{To: []string{"review"}}, nil
		}
		return dispatch(ctx, s)
	}, "tools", "review", graph.End)
	g.AddEdge(graph.Start, "agent")
	g.AddEdge("tools", "agent")
	app, err := g.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	ctx, thread := context.Background(), graph.WithThread("mail")
	_, err = app.Invoke(ctx, state.Writes(msgs.Set([]chat.Message{chat.Human("mail hello")})), thread)
	fmt.Println("waits for review:", errors.Is(err, graph.ErrInterrupted))
	out, err := app.Invoke(ctx, state.Update[S]{}, thread, graph.Resume([]toolnode.Decision{toolnode.Approve()}))
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages[1:] {
		if r, ok := m.ToolResponse(); ok {
			fmt.Println("tool:", r.Content)
		} else if calls := m.ToolCalls(); len(calls) > 0 {
			fmt.Println(m.Role, "asks for", calls[0].FunctionCall.Name)
		} else {
			fmt.Println(m.Role, m.Text())
		}
	}
	// Output:
	// waits for review: true
	// ai asks for send_email
	// tool: sent hello
	// ai done
}
