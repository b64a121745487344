package graph_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A node charges a card, then fails on its next call: on resume, Durable
// returns the saved charge instead of charging again, and RunInfo gives
// the same idempotency key to both runs of the task.
func ExampleDurable() {
	charges, runs := 0, 0
	keys := map[string]bool{}
	pay := func(ctx context.Context, e Essay) (state.Update[Essay], error) {
		runs++
		in, _ := graph.RunInfo(ctx)
		keys[in.IdempotencyKey] = true
		receipt, err := graph.Durable(ctx, "charge", func(ctx context.Context) (string, error) {
			charges++
			return "receipt-1", nil
		})
		if err != nil {
			return state.Update[Essay]{}, err
		}
		if runs == 1 {
			return state.Update[Essay]{}, errors.New("mail server down")
		}
		return state.Writes(topic.Set(receipt)), nil
	}
	c, err := graph.New(essay).AddNode("pay", pay).AddEdge(graph.Start, "pay").
		Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, err = c.Invoke(ctx, state.Writes(revisions.Set(1)), graph.WithThread("order-7"))
	fmt.Println("first run:", err != nil)
	out, err := c.Invoke(ctx, state.Update[Essay]{}, graph.WithThread("order-7"))
	fmt.Println("resumed:", out.Topic, err)
	fmt.Println("charges:", charges, "runs:", runs, "keys:", len(keys))
	// Output:
	// first run: true
	// resumed: receipt-1 <nil>
	// charges: 1 runs: 2 keys: 1
}
