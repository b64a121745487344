package graph_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Resume answers a thread's pending interrupt without spelling out the
// state type of a zero input.
func ExampleCompiled_Resume() {
	g := graph.New(essay).
		AddNode("write", write).
		AddNode("approve", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			ok, err := graph.Interrupt[bool](ctx, "publish?")
			return state.Writes(approved.Set(ok)), err
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "approve")
	app, _ := g.Compile(graph.WithCheckpointer(memory.New()))
	ctx := context.Background()

	_, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t"))
	fmt.Println(err != nil)
	out, err := app.Resume(ctx, true, graph.WithThread("t"))
	fmt.Println(out.Approved, err)
	// Output:
	// true
	// true <nil>
}
