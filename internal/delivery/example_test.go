package delivery_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
)

// The offline agent answers the case: warehouse A has no stock, so it
// replans and recommends warehouse B with standard shipping.
func Example() {
	c := delivery.New()
	agent, err := nodes.NewAgent(c.AgentConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := agent.Compile()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := app.Invoke(context.Background(), nodes.NewInput(c.Goal(), c.Constraints()...))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(s.Answer(), "\n") {
		if strings.HasPrefix(line, "Recommendation") {
			fmt.Println(line)
		}
	}
	fmt.Println("replans:", s.Usage.Replans, "change_order calls:", c.Calls(delivery.ToolChangeOrder))
	// Output:
	// Recommendation: switch to warehouse B, standard shipping: extra 10, arrives Friday 16:00 (estimated; 4 in stock there).
	// replans: 1 change_order calls: 0
}
