package main

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var deleteCmd = &command{
	name:    "delete",
	args:    "THREAD",
	summary: "delete every checkpoint, value and pending write of the thread",
	min:     1, max: 1,
	run: runDelete,
}

// deleteView is what delete prints with -json.
type deleteView struct {
	Thread      string `json:"thread"`
	Deleted     bool   `json:"deleted"`
	Checkpoints int    `json:"checkpoints"`
}

func runDelete(ctx context.Context, e *env, args []string) error {
	thread := args[0]
	hist, err := inspect.History(ctx, e.store, thread, "")
	if err != nil {
		return err
	}
	if err := e.store.DeleteThread(ctx, thread); err != nil {
		return fmt.Errorf("delete thread %q: %w", thread, err)
	}
	v := deleteView{Thread: thread, Deleted: true, Checkpoints: len(hist)}
	if e.json {
		return printJSON(e.out, v)
	}
	_, err = fmt.Fprintf(e.out, "deleted thread %s (%d checkpoints)\n", printable(thread), len(hist))
	return err
}
