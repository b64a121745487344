// Jokes is a map-reduce over SQLite with time travel: a node sends each
// subject to a joke node (its own argument type), a join picks the best
// joke, and a fork of the past adds one more before the join runs again.
// docs/langgraph.md sets it beside LangGraph Python's version.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

type Jokes struct {
	Topic    string
	Subjects []string
	Jokes    []string `state:"append"`
	Best     string
}

var schema = state.FromStruct[Jokes]()

func main() {
	subjects := func(ctx context.Context, s Jokes) (state.Update[Jokes], error) {
		return schema.Edit(s, func(s *Jokes) { s.Subjects = []string{s.Topic + " at work", s.Topic + " at home"} }), nil
	}
	best := func(ctx context.Context, s Jokes) (state.Update[Jokes], error) {
		return schema.Edit(s, func(s *Jokes) { s.Best = slices.MaxFunc(s.Jokes, func(a, b string) int { return len(a) - len(b) }) }), nil
	}
	fanOut := func(ctx context.Context, s Jokes) (sends []graph.Send[Jokes], err error) {
		for _, subject := range s.Subjects {
			sends = append(sends, graph.SendArg[Jokes]("joke", subject))
		}
		return sends, nil
	}
	g := graph.New(schema).AddNode("subjects", subjects).AddNode("best", best).
		AddEdge(graph.Start, "subjects").AddConditionalEdges("subjects", graph.FanOut(fanOut), "joke").AddEdge("joke", "best")
	graph.AddArgNode(g, "joke", func(ctx context.Context, subject string) (state.Update[Jokes], error) {
		return schema.Edit(Jokes{}, func(s *Jokes) { s.Jokes = append(s.Jokes, "A joke about "+subject) }), nil
	})

	dir, err := os.MkdirTemp("", "jokes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	saver, err := sqlite.Open(filepath.Join(dir, "jokes.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer saver.Close()
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		log.Fatal(err)
	}
	ctx, thread := context.Background(), graph.WithThread("1")
	out, err := app.Invoke(ctx, schema.Edit(Jokes{}, func(s *Jokes) { s.Topic = "cats" }), thread)
	fmt.Println(out.Best, err)

	for snap, err := range app.History(ctx, thread) {
		if err == nil && slices.Equal(snap.Next, []string{"best"}) { // before the join: time travel
			longer := schema.Edit(snap.Values, func(s *Jokes) { s.Jokes = append(s.Jokes, "A much longer joke about cats") })
			fork, err := app.UpdateState(ctx, longer, "joke", thread, graph.WithCheckpoint(snap.Config.CheckpointID))
			if err == nil {
				out, err = app.Resume(ctx, nil, thread, graph.WithCheckpoint(fork.CheckpointID))
			}
			fmt.Println(out.Best, err)
			break
		}
	}
}
