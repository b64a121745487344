package main

import (
	"context"
	"strconv"
	"time"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var historyCmd = &command{
	name:    "history",
	args:    "THREAD " + nsArgs,
	summary: "one line per checkpoint, newest first",
	min:     1, max: 1,
	flags: nsFlag,
	run:   runHistory,
}

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
	hist, err := inspect.History(ctx, e.store, args[0], ns)
	if err != nil {
		return err
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
	tb := newTable(e.out, "STEP", "SOURCE", "NODES", "TIME", "CHECKPOINT")
	for _, r := range rows {
		tb.row(strconv.Itoa(r.Step), r.Source, list(r.Nodes), when(r.CreatedAt), r.Checkpoint)
	}
	return tb.flush()
}
