package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var deleteCmd = &command{
	name:    "delete",
	args:    "THREAD [-y]",
	summary: "delete every checkpoint, value and pending write of the thread (asks first, unless -y)",
	min:     1, max: 1,
	flags: func(fs *flag.FlagSet, e *env) {
		yesFlag(fs, e, "delete")
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
	what := fmt.Sprintf("thread %s (%d checkpoints)", printable(thread), len(hist))
	if err := confirm(e, "delete", what); err != nil {
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

// yesFlag adds -y and its long form -yes, which answer yes to verb's
// question.
func yesFlag(fs *flag.FlagSet, e *env, verb string) {
	usage := verb + " without asking (needed when standard input is not a terminal)"
	fs.BoolVar(&e.yes, "y", e.yes, usage)
	fs.BoolVar(&e.yes, "yes", e.yes, "the same as -y")
}

// errNotConfirmed is the error of a command that asked and was not told
// yes, or had no terminal to ask on: exit status 1, as any command that
// did not do its work (a usage error is 2).
var errNotConfirmed = errors.New("not confirmed")

// confirm asks on the terminal whether to verb what ("delete" and
// "thread t (4 checkpoints)", made printable), unless -y was given, and returns nil
// for a yes (y or yes, in any case). Without a terminal to ask on it
// refuses: -y is how a script says yes.
func confirm(e *env, verb, what string) error {
	if e.yes {
		return nil
	}
	if !e.term.interactive || e.term.in == nil {
		return fmt.Errorf("%s %s: %w: standard input is not a terminal to confirm on; give -y to %s without asking", verb, what, errNotConfirmed, verb)
	}
	fmt.Fprintf(e.errOut, "%s %s? [y/N] ", verb, what)
	line, err := bufio.NewReader(e.term.in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	if answer == "y" || answer == "yes" {
		return nil
	}
	if err != nil && answer == "" {
		fmt.Fprintln(e.errOut) // the end of input left the prompt's line open
	}
	return fmt.Errorf("%s: %w: not done (the answer was not yes)", what, errNotConfirmed)
}
