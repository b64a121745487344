package graph_test

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A node inside a subgraph hands control to a node of its parent graph,
// with an update for the parent (LangGraph's Command(graph=PARENT)).
func ExampleToParent() {
	type Desk struct{ Log []string }
	log := state.Append("log", func(s *Desk) *[]string { return &s.Log })
	schema := state.NewSchema(log)
	note := func(s string) state.Update[Desk] { return state.Writes(log.Set([]string{s})) }

	team, err := graph.New(schema).
		AddNode("research", func(context.Context, Desk) (state.Update[Desk], error) {
			return state.Update[Desk]{}, graph.ToParent(state.Update[Desk]{
				Writes: []state.Write[Desk]{log.Set([]string{"research hands off"})},
				Goto:   []string{"editor"},
			})
		}).
		AddNode("write", func(context.Context, Desk) (state.Update[Desk], error) { return note("write"), nil }).
		AddEdge(graph.Start, "research").AddEdge("research", "write").
		Compile()
	if err != nil {
		panic(err)
	}
	app, err := graph.New(schema).
		AddSubgraph("team", team, graph.WithDestinations("editor")).
		AddNode("editor", func(context.Context, Desk) (state.Update[Desk], error) { return note("editor"), nil }).
		AddEdge(graph.Start, "team").
		Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Update[Desk]{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Log)
	// Output:
	// [research hands off editor]
}
