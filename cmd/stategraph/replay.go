package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stategraph/stategraph/replay"
)

var replayCmd = &command{
	name:    "replay",
	args:    "THREAD",
	summary: "the model and tool calls recorded with the thread (package replay), in order; -json: the whole recording, as a test fixture",
	min:     1, max: 1,
	run: runReplay,
}

func runReplay(ctx context.Context, e *env, args []string) error {
	rec, err := replay.Load(ctx, e.store.Saver, args[0])
	if err != nil {
		return err
	}
	if e.json {
		return printJSON(e.out, rec)
	}
	var took time.Duration
	var tokens replay.Tokens
	for _, c := range rec.Calls {
		took += c.Took
		tokens.Prompt += c.Tokens.Prompt
		tokens.Completion += c.Tokens.Completion
		what := string(c.Kind)
		if c.Name != "" {
			what += " " + c.Name
		}
		line := fmt.Sprintf("step %d  %s  %s #%d  %s  %s → %s", c.Step, c.Node, what, c.Seq+1, c.Took.Round(time.Microsecond), clip(string(c.Request)), clip(string(c.Response)))
		if c.Error != "" {
			line += "  error: " + clip(c.Error)
		}
		if c.Tokens != (replay.Tokens{}) {
			line += fmt.Sprintf("  tokens %d+%d", c.Tokens.Prompt, c.Tokens.Completion)
		}
		if _, err := fmt.Fprintln(e.out, printableText(line)); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(e.out, "thread %q: %d recorded calls, %s, tokens %d+%d\n", rec.Thread, len(rec.Calls), took.Round(time.Microsecond), tokens.Prompt, tokens.Completion)
	return err
}

// clip shortens s to one line of at most 60 characters.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}
