package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var deleteCmd = &command{
	name:    "delete",
	args:    "THREAD [-yes]",
	summary: "delete every checkpoint, value and pending write of the thread (asks first, unless -yes)",
	min:     1, max: 1,
	flags: func(fs *flag.FlagSet, e *env) {
		fs.BoolVar(&e.yes, "yes", e.yes, "delete without asking (needed when standard input is not a terminal)")
	},
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
	if !e.yes {
		if err := confirm(e, thread, len(hist)); err != nil {
			return err
		}
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

// confirm asks on the terminal whether to delete thread, which has n
// checkpoints, and returns nil for a yes (y or yes, in any case). Without
// a terminal to ask on it refuses: -yes is how a script says yes.
func confirm(e *env, thread string, n int) error {
	if !e.term.interactive || e.term.in == nil {
		return usagef(lookup("delete"), "delete thread %q (%d checkpoints): not deleted: standard input is not a terminal to confirm on; give -yes to delete without asking", thread, n)
	}
	fmt.Fprintf(e.errOut, "delete thread %s (%d checkpoints)? [y/N] ", printable(thread), n)
	line, err := bufio.NewReader(e.term.in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	if answer == "y" || answer == "yes" {
		return nil
	}
	if err != nil && answer == "" {
		fmt.Fprintln(e.errOut) // the end of input left the prompt's line open
	}
	return fmt.Errorf("thread %q not deleted (the answer was not yes)", thread)
}
