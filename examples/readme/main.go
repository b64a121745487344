// The README's quickstart as a program: a writer drafts until a router is
// satisfied, checkpointed in a SQLite file, then prints the drafts and the
// graph. The test beside it keeps the README's snippet identical to the
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

func run(ctx context.Context, dbPath string) error {
	g := graph.New(state.NewSchema(topic, drafts)).
		AddNode("write", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(drafts.Set([]string{fmt.Sprintf("%s, draft %d", e.Topic, len(e.Drafts)+1)})), nil
		}).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(func(ctx context.Context, e Essay) (string, error) {
			if len(e.Drafts) < 3 {
				return "write", nil
			}
			return graph.End, nil
		}), "write", graph.End)

	saver, err := sqlite.Open(dbPath) // or memory.New(), or postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer saver.Close()
	app, err := g.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		return err
	}
	out, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("essay-1"))
	if err != nil {
		return err
	}
	fmt.Println(out.Drafts)
	fmt.Print(app.Mermaid())
	return nil
}

// README:end

func main() {
	dir, err := os.MkdirTemp("", "stategraph-readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), filepath.Join(dir, "essays.db")); err != nil {
		log.Fatal(err)
	}
}
