package mcp_test

import (
	"context"
	"fmt"
	"log"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/mcp"
)

// A Go MCP server of the SDK's, reached in memory; a real one is a
// Command (stdio) or a URL (streamable HTTP).
func ExampleConnect() {
	type greetArgs struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "greeter", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "greet", Description: "greets someone", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in greetArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})

	ctx := context.Background()
	c, err := mcp.Connect(ctx, mcp.Server{Name: "greeter", Transport: func() sdk.Transport {
		st, ct := sdk.NewInMemoryTransports()
		if _, err := server.Connect(ctx, st, nil); err != nil {
			log.Fatal(err)
		}
		return ct
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// c.Tools() is what agent.New and nodes.AgentConfig.Tools take.
	greet := c.Tools()[0].(*mcp.Tool)
	fmt.Println(greet.Name(), "-", greet.Description(), "- side effects:", greet.SideEffects())
	out, err := greet.Call(ctx, `{"name":"Ada"}`)
	fmt.Println(out, err)
	_, err = greet.Call(ctx, `{}`)
	fmt.Println(err)
	// Output:
	// greet - greets someone - side effects: false
	// Hello, Ada! <nil>
	// bad input: tool "greet": missing required field "name"
}
