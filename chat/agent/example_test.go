package agent_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/graph"
	"github.com/tmc/langchaingo/llms"
)

// scripted is a model that replies with its replies in turn.
type scripted struct{ replies []llms.ContentChoice }

func (m *scripted) GenerateContent(_ context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	c := m.replies[0]
	m.replies = m.replies[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{&c}}, nil
}

func (m *scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// The agent is an ordinary graph: run it, or draw it.
func ExampleNew() {
	model := &scripted{replies: []llms.ContentChoice{{Content: "Hello! How can I help?"}}}
	a := agent.New[agent.NoResponse](model, nil, agent.WithPrompt("You are friendly."))
	app, err := a.Graph.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("hi")))
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Messages[1].Text(), out.ModelCalls)
	fmt.Print(app.Mermaid())
	// Output:
	// Hello! How can I help? 1
	// graph TD;
	//	__start__ --> agent;
	//	agent -.-> __end__;
	//	agent -.-> tools;
	//	tools --> agent;
}

// With a structured answer, a respond node follows the loop.
func ExampleNew_structured() {
	type Answer struct {
		Greeting string `json:"greeting"`
	}
	model := &scripted{replies: []llms.ContentChoice{
		{Content: "Hello!"},
		{ToolCalls: []llms.ToolCall{chat.Call("r", agent.RespondTool, `{"greeting":"Hello!"}`)}},
	}}
	a := agent.New[Answer](model, nil)
	app, err := a.Graph.Compile(graph.WithName("greeter"))
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), a.Input(chat.Human("hi")))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v %d\n", out.Response, out.ModelCalls)
	// Output:
	// {Greeting:Hello!} 2
}
