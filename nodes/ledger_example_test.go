package nodes_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/tools"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stategraph/stategraph/nodes/tool"
)

// A payment step through the effect ledger: the tool (Mutates) reads its
// call's idempotency key, to give the payment API.
func ExampleWithLedger() {
	pay := tool.New("pay_bill", "pays the bill", func(ctx context.Context, a billArgs) (string, error) {
		_, keyed := effect.Key(ctx)
		return fmt.Sprintf("charged %s (idempotency key given: %v)", a.Amount, keyed), nil
	})
	pay.Mutates = true
	cfg := nodes.AgentConfig{
		Planner: fixedPlanner{plan.Plan{Goal: "pay my bill", Steps: []plan.Step{
			{ID: "pay", Tool: "pay_bill", Input: []byte(`{"amount":"10 EUR"}`), Description: "pay the bill"},
		}}},
		Tools: []tools.Tool{pay},
	}
	a, err := nodes.NewAgent(cfg, nodes.WithLedger())
	if err != nil {
		fmt.Println(err)
		return
	}
	app, err := a.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := app.Invoke(context.Background(), nodes.NewInput("pay my bill"), graph.WithThread("bill"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.PastSteps[0].Output)
	// Output:
	// charged 10 EUR (idempotency key given: true)
}
