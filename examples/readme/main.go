// The README's quickstart as a program: a writer drafts until a router is
// satisfied, checkpointed in a SQLite file, ./essays.db, then it prints
// the drafts and how to inspect the thread, essay-1, with the inspector.
// The test beside it keeps the README's snippet identical to the marked
// part of this file.
//
//	go run ./examples/readme
//	go run ./cmd/stategraph -db essays.db history essay-1
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

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

// db is the checkpoint database, kept after the program ends so that the
// thread can be inspected.
const db = "essays.db"

func main() {
	if code, exit := parseFlags(flag.NewFlagSet("readme", flag.ContinueOnError), os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
	if err := program(context.Background(), db, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// program drafts the essay on thread essay-1 in the SQLite file path and
// prints the drafts and how to inspect the thread. An essay-1 left there
// by an earlier run is deleted first, so every run drafts from scratch.
func program(ctx context.Context, path string, out io.Writer) error {
	saver, err := sqlite.Open(path)
	if err != nil {
		return err
	}
	defer saver.Close()
	if err := saver.DeleteThread(ctx, "essay-1"); err != nil {
		return err
	}
	essay, err := run(ctx, saver)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, essay.Drafts)
	fmt.Fprintf(out, "Thread essay-1 is saved in %s. To see its checkpoints:\n  go run ./cmd/stategraph -db %s history essay-1\n", path, path)
	return nil
}
