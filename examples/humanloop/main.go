// Humanloop shows a human in the loop: a node pauses with graph.Interrupt,
// the run stops with the question, and graph.Resume answers it, on a
// thread checkpointed in memory. A support agent drafts a reply to a
// refund request; a reviewer approves it, or says what to change and the
// agent drafts again.
//
//	go run ./examples/humanloop          # the reviewer's answers are scripted
//	go run ./examples/humanloop -stdin   # you are the reviewer: y or n, then what to change
//
// Each answer resumes the same thread with a zero input and
// graph.Resume(answer): the paused node runs again from its start, and its
// Interrupt calls return the answers given so far, in order.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Ticket is the state: the request, the current draft, the reviewer's
// notes, and whether the reply was sent.
type Ticket struct {
	Request string
	Draft   string
	Drafts  int
	Notes   []string
	Sent    bool
}

var (
	request = state.Value("request", func(t *Ticket) *string { return &t.Request })
	draft   = state.Value("draft", func(t *Ticket) *string { return &t.Draft })
	drafts  = state.Sum("drafts", func(t *Ticket) *int { return &t.Drafts })
	notes   = state.Append("notes", func(t *Ticket) *[]string { return &t.Notes })
	sent    = state.Value("sent", func(t *Ticket) *bool { return &t.Sent })
	schema  = state.NewSchema(request, draft, drafts, notes, sent)
)

// Question is what the review node asks: a yes/no question, or one
// answered in words.
type Question struct {
	Prompt string
	YesNo  bool
}

// writeDraft drafts the reply, following every note the reviewer gave.
func writeDraft(_ context.Context, t Ticket) (state.Update[Ticket], error) {
	text := "Dear Ada, we are sorry order O1001 arrived damaged; we refund 120 to your card."
	for _, n := range t.Notes {
		if n != "" {
			text += " " + strings.ToUpper(n[:1]) + n[1:] + "."
		}
	}
	return state.Writes(draft.Set(text), drafts.Set(1)), nil
}

// review asks the reviewer to approve the draft and, if not, what to
// change. Each graph.Interrupt stops the run the first time; when the
// thread is resumed the node runs again and the call returns the answer.
func review(ctx context.Context, t Ticket) (state.Update[Ticket], error) {
	ok, err := graph.Interrupt[bool](ctx, Question{Prompt: "Send this reply?\n  " + t.Draft, YesNo: true})
	if err != nil {
		return state.Update[Ticket]{}, err
	}
	if ok {
		return state.Writes(sent.Set(true)), nil
	}
	note, err := graph.Interrupt[string](ctx, Question{Prompt: "What should change?"})
	if err != nil {
		return state.Update[Ticket]{}, err
	}
	return state.Writes(notes.Set([]string{note})), nil
}

// build compiles the graph: draft → review → draft again until sent.
func build() (*graph.Compiled[Ticket], error) {
	return graph.New(schema).
		AddNode("draft", writeDraft).
		AddNode("review", review).
		AddEdge(graph.Start, "draft").
		AddEdge("draft", "review").
		AddConditionalEdges("review", graph.Choose(func(_ context.Context, t Ticket) (string, error) {
			if t.Sent {
				return graph.End, nil
			}
			return "draft", nil
		}), "draft", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
}

// Answerer answers a question of the review node.
type Answerer func(q Question) (any, error)

// Script answers from a list, in order: a bool for yes/no questions, a
// string otherwise.
func Script(answers ...any) Answerer {
	return func(q Question) (any, error) {
		if len(answers) == 0 {
			return nil, errors.New("the script has no more answers")
		}
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}
}

// Prompt asks on in, writing its hints to out: y or n (yes or no, in any
// case) for yes/no questions, asking again after any other reply; a line
// otherwise. The end of the input before an answer is an error.
func Prompt(in io.Reader, out io.Writer) Answerer {
	r := bufio.NewReader(in)
	return func(q Question) (any, error) {
		for {
			if q.YesNo {
				fmt.Fprint(out, "your answer [y/n]: ")
			} else {
				fmt.Fprint(out, "your answer: ")
			}
			line, err := r.ReadString('\n')
			fmt.Fprintln(out) // the reply's own newline is not echoed when stdin is not a terminal
			line = strings.TrimSpace(line)
			if err != nil && line == "" {
				return nil, fmt.Errorf("no answer: %w", err)
			}
			if !q.YesNo {
				return line, nil
			}
			switch strings.ToLower(line) {
			case "y", "yes":
				return true, nil
			case "n", "no":
				return false, nil
			}
			fmt.Fprintf(out, "Please answer y or n (not %q).\n", line)
			if err != nil {
				return nil, fmt.Errorf("no answer: %w", err)
			}
		}
	}
}

// run drafts a reply and asks the reviewer until it is sent, printing the
// questions and answers to out.
func run(ctx context.Context, answer Answerer, out io.Writer) (Ticket, error) {
	app, err := build()
	if err != nil {
		return Ticket{}, err
	}
	thread := graph.WithThread("ticket-42")
	t, err := app.Invoke(ctx, state.Writes(request.Set("Order O1001 arrived damaged, I want a refund.")), thread)
	for {
		var ie *graph.InterruptError
		if !errors.As(err, &ie) {
			return t, err // finished, or failed
		}
		in := ie.Interrupts[0]
		q, perr := graph.Payload[Question](in)
		if perr != nil {
			return t, perr
		}
		fmt.Fprintf(out, "paused in %s at step %d: %s\n", in.Node, in.Step, q.Prompt)
		a, aerr := answer(q)
		if aerr != nil {
			return t, aerr
		}
		fmt.Fprintf(out, "reviewer: %s\n", say(a))
		t, err = app.Invoke(ctx, state.Update[Ticket]{}, thread, graph.Resume(a))
	}
}

// say renders an answer: yes or no for a bool.
func say(a any) string {
	if yes, ok := a.(bool); ok {
		if yes {
			return "yes"
		}
		return "no"
	}
	return fmt.Sprint(a)
}

func main() {
	fromStdin := flag.Bool("stdin", false, "answer the questions on standard input instead of from the script")
	flag.Parse()
	answer := Script(false, "the refund reaches your card within 3 days", true)
	if *fromStdin {
		answer = Prompt(os.Stdin, os.Stdout)
	}
	t, err := run(context.Background(), answer, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "humanloop:", err)
		os.Exit(1)
	}
	fmt.Printf("sent after %d drafts: %s\n", t.Drafts, t.Draft)
}
