package benchmarks_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/state"
)

// W3's append loop at N = 3 on the memory saver: six steps, and the
// history the W5 benchmarks read.
func ExampleAppendLoop() {
	c, err := benchmarks.AppendLoop(3, graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	out, err := c.Invoke(ctx, state.Update[benchmarks.Counter]{}, graph.WithThread("t"))
	if err != nil {
		panic(err)
	}
	n := 0
	for _, err := range c.History(ctx, graph.WithThread("t")) {
		if err != nil {
			panic(err)
		}
		n++
	}
	fmt.Println(len(out.Items), "items,", n, "checkpoints")
	// Output: 3 items, 8 checkpoints
}
