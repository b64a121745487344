package planexec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/stategraph/stategraph/graph"
)

// writeMermaid writes Markdown with two Mermaid diagrams: the agent's graph
// and the path the thread took, from its checkpoints.
func writeMermaid(ctx context.Context, a *app, thread, file string) error {
	path, err := a.MermaidPath(ctx, graph.WithThread(thread))
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Plan-and-execute: order O1001\n\n")
	b.WriteString("## The graph\n\n")
	b.WriteString("`start → planner ⇒ execute → replan ⇒ execute | respond → end`, where ⇒ sends each ready step to its own execute task.\n\n")
	fmt.Fprintf(&b, "```mermaid\n%s```\n\n", a.Mermaid())
	fmt.Fprintf(&b, "## The path thread %s took\n\n", thread)
	b.WriteString("One box per node run, in step order, from the thread's checkpoints; pending nodes are dashed.\n\n")
	fmt.Fprintf(&b, "```mermaid\n%s```\n", path)
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// checkWritable reports why file cannot be created or written, without
// changing it: a file that did not exist is removed again.
func checkWritable(file string) error {
	_, statErr := os.Stat(file)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err // the path is in the caller's message
		}
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		return os.Remove(file)
	}
	return nil
}
