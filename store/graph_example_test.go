package store_test

import (
	"context"
	"fmt"
	"log"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/memory"
)

// Chat is the state of the graph example: who talks, and the reply.
type Chat struct {
	User  string
	Reply string
}

var (
	chatUser  = state.Value("user", func(c *Chat) *string { return &c.User })
	chatReply = state.Value("reply", func(c *Chat) *string { return &c.Reply })
	chat      = state.NewSchema(chatUser, chatReply)
)

// greet is a node that reads and writes long-term memory: the store of
// the run is in its context.
func greet(ctx context.Context, c Chat) (state.Update[Chat], error) {
	mem := store.From(ctx)
	ns := []string{"users", c.User}
	visits := 0.0
	if it, err := mem.Get(ctx, ns, "visits"); err == nil {
		visits = it.Value["n"].(float64)
	}
	if err := mem.Put(ctx, ns, "visits", map[string]any{"n": visits + 1}); err != nil {
		return state.Update[Chat]{}, err
	}
	return state.Writes(chatReply.Set(fmt.Sprintf("hello %s, visit %v", c.User, visits+1))), nil
}

// A node reaches the store through the run's context; the store outlives
// threads, so a second thread sees what the first stored.
func Example_graph() {
	mem, err := memory.New()
	if err != nil {
		log.Fatal(err)
	}
	g := graph.New(chat).
		AddNode("greet", greet).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End)
	app, err := g.Compile()
	if err != nil {
		log.Fatal(err)
	}
	ctx := store.With(context.Background(), mem)
	for range 2 {
		out, err := app.Invoke(ctx, state.Writes(chatUser.Set("ada")))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(out.Reply)
	}
	// Output:
	// hello ada, visit 1
	// hello ada, visit 2
}
