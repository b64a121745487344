package graph_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A node relays the events of a graph it does not run itself (one on
// another server, say) as a subgraph's: a caller streaming WithSubgraphs
// gets them under the node's namespace.
func ExampleEmitForeign() {
	type S struct{ Done bool }
	done := state.Value("done", func(s *S) *bool { return &s.Done })
	app, _ := graph.New(state.NewSchema(done)).
		AddNode("far", func(ctx context.Context, s S) (state.Update[S], error) {
			if graph.SubgraphModes(ctx)&graph.Custom != 0 {
				graph.EmitForeign(ctx, graph.ForeignEvent{Mode: graph.Custom, Custom: "hello from afar", Payload: "raw"})
			}
			return state.Writes(done.Set(true)), nil
		}).
		AddEdge(graph.Start, "far").AddEdge("far", graph.End).
		Compile()
	for ev, err := range app.Stream(context.Background(), state.Update[S]{}, graph.StreamModes(graph.Custom), graph.WithSubgraphs()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Namespace != "", ev.Custom, ev.Nested)
	}
	// Output: true hello from afar raw
}
