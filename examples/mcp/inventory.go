package main

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type stockArgs struct {
	Item string `json:"item" jsonschema:"the item's name"`
}

type reserveArgs struct {
	Item     string `json:"item" jsonschema:"the item's name"`
	Quantity int    `json:"quantity" jsonschema:"how many to reserve"`
}

// serveInventory serves the inventory's tools over stdio until the client
// closes stdin.
func serveInventory(ctx context.Context) error {
	var mu sync.Mutex
	stock := map[string]int{"widget": 5, "gadget": 2}
	srv := sdk.NewServer(&sdk.Implementation{Name: "inventory", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "stock", Description: "how many of an item are in stock",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in stockArgs) (*sdk.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			n, ok := stock[in.Item]
			if !ok {
				return nil, nil, fmt.Errorf("no item %q", in.Item)
			}
			return text(fmt.Sprintf("%d %s in stock", n, in.Item)), nil, nil
		})
	no := false
	sdk.AddTool(srv, &sdk.Tool{Name: "reserve", Description: "reserves items from stock",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &no}},
		func(_ context.Context, _ *sdk.CallToolRequest, in reserveArgs) (*sdk.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			if n := stock[in.Item]; in.Quantity > n {
				return nil, nil, fmt.Errorf("only %d %s left, cannot reserve %d", n, in.Item, in.Quantity)
			}
			stock[in.Item] -= in.Quantity
			return text(fmt.Sprintf("reserved %d %s; %d left", in.Quantity, in.Item, stock[in.Item])), nil, nil
		})
	return srv.Run(ctx, &sdk.StdioTransport{})
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}
