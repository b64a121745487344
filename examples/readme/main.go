// The README's quickstart as a program: a writer drafts until a router is
// satisfied, checkpointed in a SQLite file, then prints the drafts. The test beside it keeps the README's snippet identical to the
// marked part of this file.
//
//	go run ./examples/readme
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// README:begin
type Essay struct {
	Topic  string
	Drafts []string
}

var (
	topic  = state.Value("topic", func(e *Essay) *string { return &e.Topic })
	drafts = state.Append("drafts", func(e *Essay) *[]string { return &e.Drafts })
)

func write(ctx context.Context, e Essay) (state.Update[Essay], error) {
	draft := fmt.Sprintf("%s, draft %d", e.Topic, len(e.Drafts)+1)
	return state.Writes(drafts.Set([]string{draft})), nil // appended by the field's reducer
}

func next(ctx context.Context, e Essay) (string, error) {
	if len(e.Drafts) < 3 {
		return "write", nil
	}
	return graph.End, nil
}

// run drafts an essay on thread "essay-1", saved after every step by saver:
// sqlite.Open(path), memory.New() or postgres.Open(ctx, dsn).
func run(ctx context.Context, saver checkpoint.Saver) (Essay, error) {
	app, err := graph.New(state.NewSchema(topic, drafts)).
		AddNode("write", write).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(next), "write", graph.End).
		Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return Essay{}, err
	}
	return app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("essay-1"))
}

// README:end

func main() {
	dir, err := os.MkdirTemp("", "stategraph-readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	saver, err := sqlite.Open(filepath.Join(dir, "essays.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer saver.Close()
	essay, err := run(context.Background(), saver)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(essay.Drafts)
}
