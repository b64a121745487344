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
	summary: "what changed from checkpoint A to checkpoint B, path by path inside objects and arrays",
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
	tb := e.table("FIELD", "CHANGE", "DETAIL").fit(cut, 0, 2)
	for _, c := range d.Changes {
		if len(c.Paths) == 0 || c.Kind == inspect.Appended {
			tb.row(inspect.FieldPath(c.Field), c.Kind, detail(c))
		}
		for _, p := range c.Paths {
			tb.row(p.Path, p.Kind, pathDetail(p))
		}
	}
	return tb.flush()
}

// detail describes a change of a whole field in a table cell, in full:
// the table shortens it to the terminal's width, if it must.
func detail(c inspect.Change) string {
	switch c.Kind {
	case inspect.Added:
		return "= " + string(c.After)
	case inspect.Removed:
		return "was " + string(c.Before)
	case inspect.Appended:
		noun := "elements"
		if c.Appended == 1 {
			noun = "element"
		}
		return "+" + strconv.Itoa(c.Appended) + " " + noun
	}
	return string(c.Before) + " → " + string(c.After)
}

// pathDetail describes a change inside a field, in full.
func pathDetail(p inspect.PathChange) string {
	return detail(inspect.Change{Kind: p.Kind, Before: p.Before, After: p.After})
}
