package agent_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// listing is a scripted model that prints the tools each call offers.
type listing struct{ scripted }

func (m *listing) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, f := range opts {
		f(&o)
	}
	var names []string
	for _, t := range o.Tools {
		names = append(names, t.Function.Name)
	}
	fmt.Println("offered:", names)
	return m.scripted.GenerateContent(ctx, msgs, opts...)
}

// A tool list that changes during a thread (an MCP server's, say): each
// model call offers the tools the source returns at that moment.
func ExampleWithToolSource() {
	calc := func(name string) tools.Tool {
		return tool.New(name, name+"s two numbers", func(context.Context, struct{ A, B int }) (string, error) { return "", nil })
	}
	current := []tools.Tool{calc("add")}
	model := &listing{scripted{replies: []llms.ContentChoice{{Content: "Hi."}, {Content: "Hi again."}}}}
	a := agent.New[agent.NoResponse](model, nil,
		agent.WithToolSource(func(context.Context) []tools.Tool { return current }))
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	for _, q := range []string{"hello", "and now?"} {
		if _, err := app.Invoke(context.Background(), a.Input(chat.Human(q)), graph.WithThread("t")); err != nil {
			panic(err)
		}
		current = append(current, calc("mul")) // the server added a tool
	}
	// Output:
	// offered: [add]
	// offered: [add mul]
}
