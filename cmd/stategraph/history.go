package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var historyCmd = &command{
	name:    "history",
	args:    "THREAD " + nsArgs + " [-n N]",
	summary: "one line per checkpoint, newest first",
	min:     1, max: 1,
	flags: func(fs *flag.FlagSet, e *env) {
		nsFlag(fs, e)
		fs.Var(&e.limit, "n", "show only the newest `N` checkpoints")
		fs.Var(&e.limit, "limit", "the same as -n `N`")
	},
	check: func(c *command, e *env) error {
		if e.limit.set && e.limit.n < 1 {
			return usagef(c, "history: -n (--limit) must be at least 1, not %d", e.limit.n)
		}
		return nil
	},
	run: runHistory,
}

// limitFlag is the value of history's -n and --limit, and whether it was
// given.
type limitFlag struct{ keepFlag }

// historyRow is one checkpoint as history prints it.
type historyRow struct {
	Checkpoint string    `json:"checkpoint"`
	Parent     string    `json:"parent,omitempty"`
	Step       int       `json:"step"`
	Source     string    `json:"source"`
	Nodes      []string  `json:"nodes"`
	RunID      string    `json:"run_id,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

func runHistory(ctx context.Context, e *env, args []string) error {
	ns, err := e.namespace(ctx, args[0])
	if err != nil {
		return err
	}
	limit := 0
	if e.limit.set {
		limit = e.limit.n + 1 // one more tells whether older ones were left out
	}
	hist, err := inspect.HistoryN(ctx, e.store, args[0], ns, limit)
	if err != nil {
		return err
	}
	older := limit > 0 && len(hist) == limit
	if older {
		hist = hist[:e.limit.n]
	}
	rows := make([]historyRow, len(hist))
	for i, t := range hist {
		r := historyRow{
			Checkpoint: t.Config.CheckpointID,
			Step:       t.Metadata.Step,
			Source:     string(t.Metadata.Source),
			Nodes:      t.Metadata.Nodes,
			RunID:      t.Metadata.RunID,
			CreatedAt:  t.Checkpoint.CreatedAt,
		}
		if r.Nodes == nil {
			r.Nodes = []string{}
		}
		if t.Parent != nil {
			r.Parent = t.Parent.CheckpointID
		}
		rows[i] = r
	}
	if e.json {
		return printJSON(e.out, rows)
	}
	tb := e.table("STEP", "SOURCE", "NODES", "TIME", "CHECKPOINT").fit(cut, 2).fit(idEnd, 4)
	for _, r := range rows {
		tb.row(strconv.Itoa(r.Step), r.Source, list(r.Nodes), when(r.CreatedAt), r.Checkpoint)
	}
	if err := tb.flush(); err != nil {
		return err
	}
	if older {
		_, err := fmt.Fprintf(e.out, "(the newest %d; older checkpoints not shown)\n", len(rows))
		return err
	}
	return nil
}
