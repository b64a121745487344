// Chatapproval is a chat agent with one tool whose calls wait for a
// person's approval: docs/langgraph.md sets it beside LangGraph Python's
// version. The model is scripted (model.go), so it runs offline.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/tools"
)

type City struct {
	City string `json:"city"`
}

func main() {
	weather := tool.New("get_weather", "Get the weather in a city.", func(ctx context.Context, a City) (string, error) {
		return "It is sunny in " + a.City + ".", nil
	})
	a := agent.New[agent.NoResponse](model(), []tools.Tool{weather}, agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		log.Fatal(err)
	}
	ctx, thread := context.Background(), graph.WithThread("1")
	_, err = app.Invoke(ctx, a.Input(chat.Human("What is the weather in Paris?")), thread)
	if ie := (*graph.InterruptError)(nil); errors.As(err, &ie) {
		fmt.Printf("asks: %+v\n", ie.Interrupts[0].Value)
	}
	out, err := app.Resume(ctx, []toolnode.Decision{toolnode.Approve()}, thread)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Messages[len(out.Messages)-1].Text())
}
