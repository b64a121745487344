package main

import (
	"context"
	"fmt"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

var mermaidCmd = &command{
	name:    "mermaid",
	args:    "THREAD [CHECKPOINT] " + nsArgs,
	summary: "the path the thread took (to its latest or the given checkpoint), as Mermaid",
	min:     1, max: 2,
	flags: nsFlag,
	run:   runMermaid,
}

// mermaidView is what mermaid prints with -json.
type mermaidView struct {
	Thread     string   `json:"thread"`
	Namespace  string   `json:"namespace,omitempty"`
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
	ns, err := e.namespace(ctx, args[0])
	if err != nil {
		return err
	}
	head, err := inspect.Resolve(ctx, e.store, args[0], ns, ref)
	if err != nil {
		return err
	}
	hist, err := inspect.History(ctx, e.store, args[0], ns)
	if err != nil {
		return err
	}
	sched, err := inspect.ParseSchedule(head)
	if err != nil {
		return fmt.Errorf("%s: %w", where(args[0], ns), err)
	}
	path := inspect.Path(hist, head)
	text := inspect.Mermaid(path, sched.Unfinished(head))
	if !e.json {
		_, err := fmt.Fprint(e.out, printableText(text))
		return err
	}
	v := mermaidView{Thread: args[0], Namespace: ns, Checkpoint: head.Config.CheckpointID, Next: sched.Unfinished(head), Mermaid: text}
	for _, t := range path {
		v.Path = append(v.Path, t.Config.CheckpointID)
	}
	return printJSON(e.out, v)
}
