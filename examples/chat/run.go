package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/agent"
	"github.com/stategraph/stategraph/chat/toolnode"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/tmc/langchaingo/llms"
)

const systemPrompt = "You are a helpful assistant on a terminal. Use the tools for the weather and for arithmetic; answer briefly."

type turnState = agent.State[agent.NoResponse]

// session is one run of the program: the agent on its thread, the
// terminal.
type session struct {
	cfg   config
	a     *agent.Agent[agent.NoResponse]
	app   *graph.Compiled[turnState]
	in    *lines
	out   io.Writer
	shown string // id of the message whose chunks are being printed
}

// errNoAnswer is the end of input while a review waits for an answer.
var errNoAnswer = errors.New("no answer to the review")

// errAtPrompt is Ctrl-C at the "you:" prompt, where no turn is pending.
var errAtPrompt = errors.New("interrupted at the prompt")

func run(ctx context.Context, cfg config, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	model, label, err := chatModel(ctx, cfg.model, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return exitUsage
	}
	saver, err := sqlite.Open(cfg.db)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return exitFailed
	}
	defer saver.Close()
	opts := []agent.Option{agent.WithPrompt(systemPrompt)}
	if cfg.review {
		opts = append(opts, agent.WithMiddleware(agent.HumanReview{Need: toolnode.ReviewAll}))
	}
	a := agent.New[agent.NoResponse](model, chatTools(getenv(slowToolEnv), stdout), opts...)
	app, err := a.Graph.Compile(graph.WithCheckpointer(saver))
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return exitFailed
	}
	s := &session{cfg: cfg, a: a, app: app, in: newLines(stdin), out: stdout}
	fmt.Fprintf(stdout, "chat on thread %s (%s), saved in %s. An empty line ends.\n", cfg.thread, label, cfg.db)
	return s.exit(s.chat(ctx), stderr)
}

// chat finishes a pending turn if asked, then reads and answers messages
// until an empty line or the end of input.
func (s *session) chat(ctx context.Context) error {
	snap, err := s.app.State(ctx, graph.WithThread(s.cfg.thread))
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		snap = nil
	case errors.Is(err, graph.ErrGraphMismatch) && !s.cfg.review:
		return fmt.Errorf("%w\nthe thread was saved with -review (its turn waits in the review node); run it with the flags it was started with:\n  %s -review", err, s.cfg.resumeCommand())
	case err != nil:
		return err
	}
	if snap != nil {
		fmt.Fprintf(s.out, "continuing the conversation: %d messages, %d model calls so far\n", len(snap.Values.Messages), snap.Values.ModelCalls)
	}
	pending := snap != nil && len(snap.Next) > 0
	switch {
	case pending && !s.cfg.resume:
		return fmt.Errorf("thread %s has an unfinished turn (next: %s); finish it with:\n  %s", s.cfg.thread, strings.Join(snap.Next, ", "), s.cfg.resumeCommand())
	case pending:
		fmt.Fprintf(s.out, "resuming the unfinished turn (next: %s)\n", strings.Join(snap.Next, ", "))
		var resume []graph.RunOption
		if len(snap.Interrupts) > 0 {
			d, err := s.review(ctx, snap.Interrupts[0])
			if err != nil {
				return err
			}
			resume = append(resume, graph.Resume(d))
		}
		if err := s.turn(ctx, state.Update[turnState]{}, resume...); err != nil {
			return err
		}
	case s.cfg.resume:
		fmt.Fprintln(s.out, "nothing to resume: the last turn finished")
	}
	for {
		fmt.Fprint(s.out, "you: ")
		line, ok, err := s.in.next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return errAtPrompt // Ctrl-C between turns: nothing is pending
			}
			return err
		}
		if !ok || strings.TrimSpace(line) == "" {
			fmt.Fprintln(s.out, "\nbye")
			return nil
		}
		if err := s.turn(ctx, s.a.Input(chat.Human(line))); err != nil {
			return err
		}
	}
}

// turn runs the agent until it answers, asking the reviewer whenever a
// tool call waits for a decision.
func (s *session) turn(ctx context.Context, input state.Update[turnState], extra ...graph.RunOption) error {
	for {
		opts := append([]graph.RunOption{graph.WithThread(s.cfg.thread),
			graph.StreamModes(graph.Messages, graph.Tasks, graph.Interrupts)}, extra...)
		var pending []graph.Interruption
		for ev, err := range s.app.Stream(ctx, input, opts...) {
			if err != nil {
				s.endLine()
				return err
			}
			switch ev.Mode {
			case graph.Messages:
				s.chunk(ev.MessageID, string(ev.Chunk))
			case graph.Tasks:
				if ev.Task.Result && ev.Task.Err == nil {
					s.update(ev.Node, ev.Update, ev.Task.Cached)
				}
			case graph.Interrupts:
				pending = ev.Interrupts
			}
		}
		s.endLine()
		if len(pending) == 0 {
			return nil
		}
		d, err := s.review(ctx, pending[0])
		if err != nil {
			return err
		}
		input, extra = state.Update[turnState]{}, []graph.RunOption{graph.Resume(d)}
	}
}

// chunk prints a streamed chunk of the assistant's reply. A chunk that is
// a tool call's JSON (langchaingo's OpenAI client streams those too) is
// left out: the update shows the call.
func (s *session) chunk(messageID, text string) {
	var calls []struct {
		Function json.RawMessage `json:"function"`
	}
	if json.Unmarshal([]byte(text), &calls) == nil && len(calls) > 0 && calls[0].Function != nil {
		return
	}
	if messageID != s.shown {
		s.endLine()
		fmt.Fprint(s.out, "assistant: ")
		s.shown = messageID
	}
	fmt.Fprint(s.out, text)
}

func (s *session) endLine() {
	if s.shown != "" {
		fmt.Fprintln(s.out)
		s.shown = ""
	}
}

// update prints what a finished task wrote: the tool calls the agent asked
// for, a reply that was not streamed, and the tools' answers — marked when
// the answer was saved before a resume and not run again (cached).
func (s *session) update(node string, u state.Update[turnState], cached bool) {
	streamed := s.shown
	s.endLine()
	for _, w := range u.Writes {
		msgs, ok := w.Value().([]chat.Message)
		if !ok || w.Field() != s.a.Messages.Name() {
			continue
		}
		for _, m := range msgs {
			switch {
			case m.Role == llms.ChatMessageTypeAI && node == agent.NodeAgent:
				if t := m.Text(); t != "" && m.ID != streamed {
					fmt.Fprintf(s.out, "assistant: %s\n", t)
				}
				for _, c := range m.ToolCalls() {
					fmt.Fprintf(s.out, "  → %s %s\n", c.FunctionCall.Name, c.FunctionCall.Arguments)
				}
			case m.Role == llms.ChatMessageTypeTool:
				if r, ok := m.ToolResponse(); ok {
					saved := ""
					if cached {
						saved = " (answered before, not run again)"
					}
					fmt.Fprintf(s.out, "  ← %s: %s%s\n", r.Name, strings.ReplaceAll(r.Content, "\n", " "), saved)
				}
			}
		}
	}
}

// review asks, for each call of the interrupt's review, approve, reject or
// edit.
func (s *session) review(ctx context.Context, in graph.Interruption) ([]toolnode.Decision, error) {
	rev, err := graph.Payload[toolnode.Review](in)
	if err != nil {
		return nil, err
	}
	ask := func(q string) (string, error) {
		fmt.Fprint(s.out, q)
		line, ok, err := s.in.next(ctx)
		if err != nil {
			return "", err
		}
		if !ok {
			fmt.Fprintln(s.out)
			return "", errNoAnswer
		}
		return strings.TrimSpace(line), nil
	}
	var out []toolnode.Decision
	for _, c := range rev.Calls {
		fmt.Fprintf(s.out, "review: %s %s\n", c.Tool, c.Args)
		for {
			a, err := ask("  approve [y], reject [n] or edit [e]? ")
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(a) {
			case "y", "yes":
				out = append(out, toolnode.Approve())
			case "n", "no":
				why, err := ask("  why? ")
				if err != nil {
					return nil, err
				}
				out = append(out, toolnode.Reject(why))
			case "e", "edit":
				for {
					args, err := ask("  new arguments (JSON): ")
					if err != nil {
						return nil, err
					}
					if json.Valid([]byte(args)) {
						out = append(out, toolnode.Edit(args))
						break
					}
					fmt.Fprintf(s.out, "  %q is not JSON; try again\n", args)
				}
			default:
				fmt.Fprintf(s.out, "  please answer y, n or e (not %q)\n", a)
				continue
			}
			break
		}
	}
	return out, nil
}

// exit reports how the chat ended and returns the exit code.
func (s *session) exit(err error, stderr io.Writer) int {
	resume := s.cfg.resumeCommand()
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errAtPrompt):
		fmt.Fprintf(s.out, "\nInterrupted. The conversation is saved; go on with it with:\n  %s\n", s.cfg.continueCommand())
		return exitInterrupted
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(s.out, "\nInterrupted. The thread is saved; finish the turn with:\n  %s\n", resume)
		return exitInterrupted
	case errors.Is(err, errNoAnswer):
		fmt.Fprintf(s.out, "The tool call waits for your review; answer it with:\n  %s\n", resume)
		return exitFailed
	default:
		fmt.Fprintln(stderr, "chat:", err)
		return exitFailed
	}
}
