package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/replay"
)

var replayCmd = &command{
	name: "replay",
	args: "THREAD [-graph chat|planexecute] [-from CHECKPOINT] | -list THREAD",
	summary: "re-run a thread recorded by `stategraph serve -record`'s chat or planexecute offline, every model and tool call answered from the recording; " +
		"print the first divergence (exit 1) or \"no divergence\"; -list: the recorded calls, in order (-json: the recording, as a test fixture)",
	min: 1, max: 1,
	flags: func(fs *flag.FlagSet, e *env) {
		fs.BoolVar(&e.rp.list, "list", false, "list the recorded calls instead of re-running the thread")
		fs.StringVar(&e.rp.graph, "graph", "", "the served graph `NAME` that recorded the thread: chat or planexecute (default: told by the thread's state)")
		fs.StringVar(&e.rp.from, "from", "", "replay from the `CHECKPOINT` id (stategraph history shows them) instead of the thread's first input")
	},
	run: runReplay,
}

// replayFlags are replay's own flags.
type replayFlags struct {
	list        bool
	graph, from string
}

// errDiverged is the error of a replay that diverged: the divergence is
// printed already.
var errDiverged = errors.New("the replay diverged")

func runReplay(ctx context.Context, e *env, args []string) error {
	if e.rp.list {
		return listReplay(ctx, e, args)
	}
	thread := args[0]
	name := e.rp.graph
	if name == "" {
		var err error
		if name, err = graphOf(ctx, e, thread); err != nil {
			return err
		}
	}
	var opts []replay.Option
	if e.rp.from != "" {
		opts = append(opts, replay.WithFrom(e.rp.from))
	}
	divs, err := servegraphs.Replay(ctx, e.store.Saver, name, thread, opts...)
	if err != nil {
		return err
	}
	if e.json {
		if err := printJSON(e.out, replayView{Thread: thread, Graph: name, Divergences: divs}); err != nil {
			return err
		}
	} else if len(divs) == 0 {
		_, err = fmt.Fprintf(e.out, "thread %q (%s): no divergence\n", thread, name)
	} else {
		d := divs[0]
		_, err = fmt.Fprintf(e.out, "thread %q (%s): %s at step %d (%s): %s\n", thread, name, d.Kind, d.Step, d.Node, printableText(d.String()))
	}
	if err != nil {
		return err
	}
	if len(divs) > 0 {
		return fmt.Errorf("replay: thread %q: %d divergences: %w", thread, len(divs), errDiverged)
	}
	return nil
}

// replayView is what replay prints with -json.
type replayView struct {
	Thread      string              `json:"thread"`
	Graph       string              `json:"graph"`
	Divergences []replay.Divergence `json:"divergences"`
}

// graphOf tells which served graph recorded thread from its latest
// state's fields: messages (chat) or plan (planexecute).
func graphOf(ctx context.Context, e *env, thread string) (string, error) {
	for tup, err := range e.store.Saver.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
		if err != nil {
			return "", fmt.Errorf("replay: read thread %q: %w", thread, err)
		}
		if tup.Config.Namespace != "" {
			continue
		}
		switch {
		case tup.Checkpoint.Versions["messages"] != "":
			return "chat", nil
		case tup.Checkpoint.Versions["plan"] != "":
			return "planexecute", nil
		}
		return "", fmt.Errorf("replay: thread %q is neither chat's nor planexecute's (no messages, no plan): say which with -graph, or list its calls with -list", thread)
	}
	return "", fmt.Errorf("replay: thread %q: %w", thread, checkpoint.ErrNotFound)
}

func listReplay(ctx context.Context, e *env, args []string) error {
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
