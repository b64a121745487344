package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// The agent of docs/chat.md: a typed tool, a system prompt, a bound on
// model calls, a structured answer, and a human who reviews each call.
func ExampleNew_review() {
	ctx := context.Background()
	type City struct {
		Name string `json:"name" jsonschema:"description=the city"`
	}
	type Forecast struct {
		City    string `json:"city"`
		Summary string `json:"summary"`
	}
	weather := tool.New("get_weather", "Today's weather in a city.", func(_ context.Context, c City) (string, error) {
		return "sunny in " + c.Name, nil
	})
	model := &scripted{replies: []llms.ContentChoice{ // any llms.Model: openai.New(…), ollama.New(…)
		{ToolCalls: []llms.ToolCall{chat.Call("call_1", "get_weather", `{"name":"Olso"}`)}},
		{Content: "It is sunny in Oslo."},
		{ToolCalls: []llms.ToolCall{chat.Call("r", agent.RespondTool, `{"city":"Oslo","summary":"sunny"}`)}},
	}}

	a := agent.New[Forecast](model, []tools.Tool{weather},
		agent.WithPrompt("You are a weather assistant."),
		agent.WithMaxModelCalls(5),
		agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewTools("get_weather")}),
	)
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	thread := graph.WithThread("weather-1")
	_, err = app.Invoke(ctx, a.Input(chat.Human("Weather in Oslo?")), thread)
	var stop *graph.InterruptError
	if !errors.As(err, &stop) {
		panic(err)
	}
	review, err := graph.Payload[toolnode.Review](stop.Interrupts[0])
	if err != nil {
		panic(err)
	}
	fmt.Println("review:", review.Calls[0].Tool, review.Calls[0].Args)

	// The reviewer fixes the city's name; the run goes on from the review node.
	decisions := []toolnode.Decision{toolnode.Edit(`{"name":"Oslo"}`)}
	out, err := app.Invoke(ctx, state.Update[agent.State[Forecast]]{}, thread, graph.Resume(decisions))
	if err != nil {
		panic(err)
	}
	answer, _ := out.Messages[2].ToolResponse()
	fmt.Println(answer.Content, "|", out.Messages[3].Text())
	fmt.Printf("%+v after %d model calls\n", out.Response, out.ModelCalls)
	// Output:
	// review: get_weather {"name":"Olso"}
	// sunny in Oslo | It is sunny in Oslo.
	// {City:Oslo Summary:sunny} after 3 model calls
}
