package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var diffCmd = &command{
	name:    "diff",
	args:    "THREAD A B " + nsArgs,
	summary: "the fields that changed from checkpoint A to checkpoint B",
	min:     3, max: 3,
	flags: nsFlag,
	run:   runDiff,
}

// diffEnd is one side of a diff.
type diffEnd struct {
	Checkpoint string `json:"checkpoint"`
	Step       int    `json:"step"`
}

// diffView is what diff prints.
type diffView struct {
	Thread    string           `json:"thread"`
	Namespace string           `json:"namespace,omitempty"`
	A         diffEnd          `json:"a"`
	B         diffEnd          `json:"b"`
	Changes   []inspect.Change `json:"changes"`
}

func runDiff(ctx context.Context, e *env, args []string) error {
	thread := args[0]
	ns, err := e.namespace(ctx, thread)
	if err != nil {
		return err
	}
	a, err := inspect.Resolve(ctx, e.store, thread, ns, args[1])
	if err != nil {
		return err
	}
	b, err := inspect.Resolve(ctx, e.store, thread, ns, args[2])
	if err != nil {
		return err
	}
	va, err := inspect.Values(a)
	if err != nil {
		return fmt.Errorf("%s: %w", where(thread, ns), err)
	}
	vb, err := inspect.Values(b)
	if err != nil {
		return fmt.Errorf("%s: %w", where(thread, ns), err)
	}
	d := diffView{
		Thread:    thread,
		Namespace: ns,
		A:         diffEnd{Checkpoint: a.Config.CheckpointID, Step: a.Metadata.Step},
		B:         diffEnd{Checkpoint: b.Config.CheckpointID, Step: b.Metadata.Step},
		Changes:   inspect.Diff(va, vb),
	}
	if e.json {
		return printJSON(e.out, d)
	}
	at := "thread " + thread
	if ns != "" {
		at += " namespace " + ns
	}
	fmt.Fprintf(e.out, "%s: A %s (step %d) → B %s (step %d)\n",
		printable(at), printable(d.A.Checkpoint), d.A.Step, printable(d.B.Checkpoint), d.B.Step)
	if len(d.Changes) == 0 {
		_, err := fmt.Fprintln(e.out, "no field changed")
		return err
	}
	tb := newTable(e.out, "FIELD", "CHANGE", "DETAIL")
	for _, c := range d.Changes {
		tb.row(c.Field, c.Kind, detail(c))
	}
	return tb.flush()
}

// detail describes a change in a table cell.
func detail(c inspect.Change) string {
	switch c.Kind {
	case inspect.Added:
		return "= " + short(string(c.After), 60)
	case inspect.Removed:
		return "was " + short(string(c.Before), 60)
	case inspect.Appended:
		noun := "elements"
		if c.Appended == 1 {
			noun = "element"
		}
		return "+" + strconv.Itoa(c.Appended) + " " + noun
	}
	return short(string(c.Before), 40) + " → " + short(string(c.After), 40)
}
