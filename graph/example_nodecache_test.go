package graph_test

import (
	"context"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A node with a cache policy runs once per input within its TTL; the
// second run takes its writes from the cache, and its Updates event says
// so.
func ExampleWithCache() {
	type Q struct{ Question, Answer string }
	question := state.Value("question", func(q *Q) *string { return &q.Question })
	answer := state.Value("answer", func(q *Q) *string { return &q.Answer })
	calls := 0
	g := graph.New(state.NewSchema(question, answer)).
		AddNode("expensive", func(ctx context.Context, q Q) (state.Update[Q], error) {
			calls++
			return state.Writes(answer.Set("42")), nil
		}, graph.WithCache(graph.CachePolicy[Q]{
			Key: func(q Q) string { return q.Question }, // the answer depends on the question only
			TTL: time.Hour,
		})).
		AddEdge(graph.Start, "expensive")
	app, err := g.Compile(graph.WithNodeCache(graph.NewMemoryCache(nil)))
	if err != nil {
		panic(err)
	}
	for range 2 {
		for ev, err := range app.Stream(context.Background(), state.Writes(question.Set("life?")), graph.StreamModes(graph.Updates)) {
			if err != nil {
				panic(err)
			}
			fmt.Println(ev.Node, ev.Update.Writes[0].Value(), "cached:", ev.Cached)
		}
	}
	fmt.Println("calls:", calls)
	// Output:
	// expensive 42 cached: false
	// expensive 42 cached: true
	// calls: 1
}
