package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/mcp"
	"github.com/tmc/langchaingo/llms"
)

// run starts exe as the inventory server, and chats with the agent over
// its tools.
func run(ctx context.Context, exe string, out io.Writer) error {
	c, err := mcp.Connect(ctx, mcp.Server{Name: "inventory", Command: exe, Args: []string{serveArg}})
	if err != nil {
		return err
	}
	defer c.Close()
	ts := c.Tools()
	fmt.Fprintf(out, "MCP server %q offers %d tools:\n", c.Name(), len(ts))
	for _, t := range ts {
		mt := t.(*mcp.Tool)
		fmt.Fprintf(out, "  %s — %s (side effects: %t)\n    input: %s\n", mt.Name(), mt.Description(), mt.SideEffects(), mt.InputSchema())
	}

	a := agent.New[agent.NoResponse](scripted{}, ts)
	app, err := a.Graph.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		return err
	}
	final, err := app.Invoke(ctx, a.Input(chat.Human("Reserve 3 widgets, then 4 more.")), graph.WithThread("order"))
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	for _, m := range final.Messages {
		switch {
		case len(m.ToolCalls()) > 0:
			for _, tc := range m.ToolCalls() {
				fmt.Fprintf(out, "ai:    calls %s %s\n", tc.FunctionCall.Name, tc.FunctionCall.Arguments)
			}
		case m.Role == llms.ChatMessageTypeTool:
			r, _ := m.ToolResponse()
			fmt.Fprintf(out, "tool:  %s\n", strings.ReplaceAll(r.Content, "\n", " "))
		default:
			fmt.Fprintf(out, "%-6s %s\n", string(m.Role)+":", m.Text())
		}
	}
	return nil
}

// scripted is an offline model: it checks the stock, reserves 3, tries
// to reserve 4 more, and answers from what the tools said.
type scripted struct{}

func (scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var results []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				results = append(results, r.Content)
			}
		}
	}
	call := func(name, args string) (*llms.ContentResponse, error) {
		id := fmt.Sprintf("call-%d", len(results)+1)
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: []llms.ToolCall{
			{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}},
		}}}}, nil
	}
	switch len(results) {
	case 0:
		return call("stock", `{"item":"widget"}`)
	case 1:
		return call("reserve", `{"item":"widget","quantity":3}`)
	case 2:
		return call("reserve", `{"item":"widget","quantity":4}`)
	}
	answer := fmt.Sprintf("I reserved 3 widgets (%s). The next 4 could not be reserved: %s",
		results[1], strings.SplitN(results[2], "\n", 2)[0])
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer}}}, nil
}

func (s scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}
