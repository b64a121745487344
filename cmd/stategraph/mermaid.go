package main

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var mermaidCmd = &command{
	name:    "mermaid",
	args:    "THREAD [CHECKPOINT]",
	summary: "the path the thread took (to its latest or the given checkpoint), as Mermaid",
	min:     1, max: 2,
	run: runMermaid,
}

// mermaidView is what mermaid prints with -json.
type mermaidView struct {
	Thread     string   `json:"thread"`
	Checkpoint string   `json:"checkpoint"`
	Path       []string `json:"path"`
	Next       []string `json:"next"`
	Mermaid    string   `json:"mermaid"`
}

func runMermaid(ctx context.Context, e *env, args []string) error {
	var ref string
	if len(args) > 1 {
		ref = args[1]
	}
	head, err := inspect.Resolve(ctx, e.store, args[0], ref)
	if err != nil {
		return err
	}
	hist, err := inspect.History(ctx, e.store, args[0])
	if err != nil {
		return err
	}
	sched, err := inspect.ParseSchedule(head)
	if err != nil {
		return fmt.Errorf("thread %q: %w", args[0], err)
	}
	path := inspect.Path(hist, head)
	text := inspect.Mermaid(path, sched.Next())
	if !e.json {
		_, err := fmt.Fprint(e.out, text)
		return err
	}
	v := mermaidView{Thread: args[0], Checkpoint: head.Config.CheckpointID, Next: sched.Next(), Mermaid: text}
	for _, t := range path {
		v.Path = append(v.Path, t.Config.CheckpointID)
	}
	return printJSON(e.out, v)
}
