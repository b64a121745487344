package tool_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/nodes/tool"
)

type quoteArgs struct {
	Warehouse string `json:"warehouse" jsonschema:"description=where the order ships from"`
	Method    string `json:"method" jsonschema:"enum=standard,enum=express"`
}

func ExampleNew() {
	quote := tool.New("shipping_quote", "Quote shipping from a warehouse.", func(_ context.Context, a quoteArgs) (string, error) {
		return fmt.Sprintf(`{"warehouse":%q,"method":%q,"extra":10}`, a.Warehouse, a.Method), nil
	})
	fmt.Println(string(quote.InputSchema()))
	out, err := quote.Call(context.Background(), `{"warehouse":"B","method":"standard"}`)
	fmt.Println(out, err)
	_, err = quote.Call(context.Background(), `{"warehouse":"B"}`)
	fmt.Println(err)
	// Output:
	// {"properties":{"warehouse":{"type":"string","description":"where the order ships from"},"method":{"type":"string","enum":["standard","express"]}},"additionalProperties":false,"type":"object","required":["warehouse","method"]}
	// {"warehouse":"B","method":"standard","extra":10} <nil>
	// bad input: missing required field "method"
}

func ExampleFunc() {
	lookup := tool.Func{
		ToolName:        "order_lookup",
		ToolDescription: `Look up an order. Input: {"order_id": "..."}.`,
		Fn: func(_ context.Context, input string) (string, error) {
			return `{"order_id":"O1001","sku":"SKU-01","warehouse":"A"}`, nil
		},
	}
	out, _ := lookup.Call(context.Background(), `{"order_id":"O1001"}`)
	fmt.Println(lookup.Name(), lookup.SideEffects(), out)
	// Output:
	// order_lookup false {"order_id":"O1001","sku":"SKU-01","warehouse":"A"}
}
