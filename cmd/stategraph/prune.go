package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var pruneCmd = &command{
	name:    "prune",
	args:    "THREAD --keep N | --older-than D [--keep N] [-y]",
	summary: "keep the newest N checkpoints of the thread, delete the rest; or delete (prune to N) every thread untouched for D (asks first, unless -y)",
	min:     0, max: 1,
	flags: func(fs *flag.FlagSet, e *env) {
		fs.Var(&e.keep, "keep", "how many checkpoints to keep (at least 1)")
		fs.Var(&e.older, "older-than", "threads whose last checkpoint is older than this (720h, 30d)")
		yesFlag(fs, e, "prune")
	},
	check: func(c *command, e *env) error {
		switch {
		case e.older.set:
			return checkPruneOlder(c, e)
		case !e.keep.set:
			return usagef(c, "prune: --keep N is required")
		case e.keep.n < 1:
			return usagef(c, "prune: --keep must be at least 1, not %d (to remove a thread, use delete)", e.keep.n)
		}
		return nil
	},
	run: runPrune,
}

// keepFlag is the value of --keep and whether it was given: every int,
// -1 included, is a value someone may type.
type keepFlag struct {
	n   int
	set bool
}

func (k *keepFlag) String() string {
	if k == nil || !k.set {
		return ""
	}
	return strconv.Itoa(k.n)
}

func (k *keepFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range")
	case err != nil:
		return errors.New("not an integer")
	}
	k.n, k.set = n, true
	return nil
}

// pruneView is what prune prints with -json.
type pruneView struct {
	Thread  string `json:"thread"`
	Keep    int    `json:"keep"`
	Before  int    `json:"before"`
	After   int    `json:"after"`
	Removed int    `json:"removed"`
}

func runPrune(ctx context.Context, e *env, args []string) error {
	if e.older.set {
		return runPruneOlder(ctx, e, args)
	}
	if len(args) == 0 {
		return usagef(lookup("prune"), "prune: missing THREAD (or --older-than D)")
	}
	thread := args[0]
	p, ok := e.store.Saver.(checkpoint.Pruner)
	if !ok {
		return fmt.Errorf("%s: the checkpoint saver %T cannot prune (it does not implement checkpoint.Pruner)", e.store.Name, e.store.Saver)
	}
	before, err := inspect.History(ctx, e.store, thread, "")
	if err != nil {
		return err
	}
	if len(before) > e.keep.n {
		what := fmt.Sprintf("thread %s to its newest %d checkpoints (%d of %d deleted)", printable(thread), e.keep.n, len(before)-e.keep.n, len(before))
		if err := confirm(e, "prune", what); err != nil {
			return err
		}
	}
	if err := p.Prune(ctx, thread, e.keep.n); err != nil {
		return fmt.Errorf("prune thread %q: %w", thread, err)
	}
	after, err := inspect.History(ctx, e.store, thread, "")
	if err != nil {
		return err
	}
	v := pruneView{Thread: thread, Keep: e.keep.n, Before: len(before), After: len(after), Removed: len(before) - len(after)}
	if e.json {
		return printJSON(e.out, v)
	}
	_, err = fmt.Fprintf(e.out, "pruned thread %s: kept %d of %d checkpoints, removed %d\n", printable(thread), v.After, v.Before, v.Removed)
	return err
}
