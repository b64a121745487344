// Humanloop shows a human in the loop: a node pauses with graph.Interrupt,
// the run stops with the question, and graph.Resume answers it. A support
// agent drafts a reply to a refund request; a reviewer approves it, or
// says what to change and the agent drafts again. A note that says
// nothing (empty, or only spaces) is refused: the review asks again.
//
//	go run ./examples/humanloop          # the reviewer's answers are scripted
//	go run ./examples/humanloop -stdin   # you are the reviewer: y or n, then what to change
//
// Each answer resumes the same thread with a zero input and
// graph.Resume(answer): the paused node runs again from its start, and its
// Interrupt calls return the answers given so far, in order.
//
// The thread is checkpointed in memory, or with -db in a SQLite file,
// where it outlives the process: the question can be answered by another
// process, later. -stop stops at the first question; -resume, in a new
// process, reads the question the thread waits on from the file and
// answers it (scripted, or with -stdin on standard input):
//
//	go run ./examples/humanloop -db ticket.db -stop     # drafts, asks, stops: the question waits in ticket.db
//	go run ./examples/humanloop -db ticket.db -resume   # another process answers it and finishes
//
// With -db and -stdin, the end of standard input before an answer stops
// the same way, to be resumed. A run without -resume starts the ticket
// afresh when the one in the file was sent, and refuses while it is not
// finished (a question waits): that is -resume's.
//
// Flags:
//
//	-stdin      answer on standard input instead of from the script
//	-db PATH    checkpoint in the SQLite file PATH instead of in memory
//	-stop       stop at the first question (needs -db)
//	-resume     answer the question the thread in -db waits on (needs -db)
//
// Exit status: 0 when the reply was sent, or the run stopped at a question
// to resume; 1 when it failed; 2 for bad flags, a -resume with nothing to
// resume, or a new ticket while the one in -db is not finished.
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

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/examples/internal/cli"
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
	// An empty note would send the same draft back: ask until one says
	// something. Each refusal is one more Interrupt call, answered in turn.
	for err == nil && strings.TrimSpace(note) == "" {
		note, err = graph.Interrupt[string](ctx, Question{Prompt: emptyNote})
	}
	if err != nil {
		return state.Update[Ticket]{}, err
	}
	return state.Writes(notes.Set([]string{strings.TrimSpace(note)})), nil
}

// emptyNote is the question that refuses an empty revision request.
const emptyNote = "An empty note changes nothing: the same draft would come back. What should change?"

// build compiles the graph, checkpointed by saver: draft → review →
// draft again until sent.
func build(saver checkpoint.Saver) (*graph.Compiled[Ticket], error) {
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
		Compile(graph.WithCheckpointer(saver))
}

// Answerer answers a question of the review node.
type Answerer func(q Question) (any, error)

// Script answers from a list, in order: a bool for yes/no questions, a
// string otherwise. An answer of the other kind is an error naming it.
func Script(answers ...any) Answerer {
	return func(q Question) (any, error) {
		if len(answers) == 0 {
			return nil, errors.New("the script has no more answers")
		}
		a := answers[0]
		answers = answers[1:]
		if _, yesNo := a.(bool); yesNo != q.YesNo {
			return nil, fmt.Errorf("the script's next answer, %q, does not answer %q (answer it with -stdin)", say(a), q.Prompt)
		}
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

// threadID is the ticket's thread.
const threadID = "ticket-42"

// run drafts a reply and asks the reviewer until it is sent, printing the
// questions and answers to out, on a thread checkpointed in memory.
func run(ctx context.Context, answer Answerer, out io.Writer) (Ticket, error) {
	return runTicket(ctx, session{saver: memory.New()}, answer, out)
}

// session is where and how runTicket runs the ticket's thread.
type session struct {
	saver checkpoint.Saver
	// resume answers the question the thread waits on in saver instead
	// of starting the ticket.
	resume bool
	// stop stops at the first question, leaving it in saver.
	stop bool
	// stopAtEOF stops, like stop, when the answers end (io.EOF).
	stopAtEOF bool
}

// ErrStopped is runTicket's error when it stopped at a question that waits in
// the checkpoint database, to be answered with -resume.
var ErrStopped = errors.New("stopped at a question")

// ErrNothingToResume is runTicket's error for -resume on a thread that waits
// on no question.
var ErrNothingToResume = errors.New("nothing to resume")

// ErrWaiting is runTicket's error when it would start a ticket whose
// thread in the database is not finished: it waits on a question.
var ErrWaiting = errors.New("the ticket is not finished")

// runTicket runs the ticket's thread in s, asking answer each question.
func runTicket(ctx context.Context, s session, answer Answerer, out io.Writer) (Ticket, error) {
	app, err := build(s.saver)
	if err != nil {
		return Ticket{}, err
	}
	thread := graph.WithThread(threadID)
	snap, err := app.State(ctx, thread)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		snap = nil
	case err != nil:
		return Ticket{}, err
	}
	var t Ticket
	switch {
	case s.resume && snap == nil:
		return t, fmt.Errorf("%w: no thread %s in the database (start it without -resume)", ErrNothingToResume, threadID)
	case s.resume && len(snap.Interrupts) > 0:
		fmt.Fprintf(out, "resuming thread %s from the database: it waits in %s at step %d\n", threadID, snap.Interrupts[0].Node, snap.Interrupts[0].Step)
		t, err = snap.Values, &graph.InterruptError{Interrupts: snap.Interrupts}
	case s.resume && len(snap.Next) > 0:
		// Stopped between steps (a crash, a kill): a zero input goes on.
		fmt.Fprintf(out, "resuming thread %s from the database: next %s\n", threadID, strings.Join(snap.Next, ", "))
		t, err = app.Invoke(ctx, state.Update[Ticket]{}, thread)
	case s.resume:
		return snap.Values, fmt.Errorf("%w: thread %s waits on no question: its reply was sent (start a new ticket without -resume)", ErrNothingToResume, threadID)
	case snap != nil && (len(snap.Interrupts) > 0 || len(snap.Next) > 0):
		return snap.Values, fmt.Errorf("%w: thread %s in the database is not finished: go on with -resume (or delete the file to start over)", ErrWaiting, threadID)
	default:
		if snap != nil {
			// The ticket of an earlier run, sent: start it afresh.
			if err := s.saver.DeleteThread(ctx, threadID); err != nil {
				return Ticket{}, err
			}
		}
		t, err = app.Invoke(ctx, state.Writes(request.Set("Order O1001 arrived damaged, I want a refund.")), thread)
	}
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
		if s.stop {
			return t, ErrStopped
		}
		a, aerr := answer(q)
		if s.stopAtEOF && errors.Is(aerr, io.EOF) {
			return t, ErrStopped
		}
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
	os.Exit(program(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// program runs the command line args and returns the exit status.
func program(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("humanloop", flag.ContinueOnError)
	fromStdin := fs.Bool("stdin", false, "answer the questions on standard input instead of from the script")
	db := fs.String("db", "", "checkpoint the thread in the SQLite file `PATH` instead of in memory, so that another process can resume it")
	stop := fs.Bool("stop", false, "stop at the first question, leaving it in -db for a later -resume")
	resume := fs.Bool("resume", false, "answer the question the thread in -db waits on, instead of starting a new ticket")
	if code, exit := parseFlags(fs, args, stdout, stderr); exit {
		return code
	}
	switch {
	case *stop && *resume:
		return usageError(stderr, fs, "-stop and -resume do not go together: -stop starts a ticket, -resume goes on with one")
	case (*stop || *resume) && *db == "":
		return usageError(stderr, fs, "-stop and -resume need -db PATH: a thread in memory ends with its process")
	}
	answer := Script(false, "the refund reaches your card within 3 days", true)
	if *fromStdin {
		answer = Prompt(stdin, stdout)
	}
	s := session{saver: memory.New(), resume: *resume, stop: *stop}
	if *db != "" {
		saver, err := sqlite.Open(*db)
		if err != nil {
			fmt.Fprintln(stderr, "humanloop:", err)
			return 1
		}
		defer saver.Close()
		s.saver, s.stopAtEOF = saver, true
	}
	t, err := runTicket(ctx, s, answer, stdout)
	switch {
	case errors.Is(err, ErrStopped):
		fmt.Fprintf(stdout, "stopped: the question waits in %s. To answer it from another process:\n  go run ./examples/humanloop -db %s -resume\n", *db, *db)
		return 0
	case errors.Is(err, ErrNothingToResume), errors.Is(err, ErrWaiting):
		fmt.Fprintln(stderr, "humanloop:", err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "humanloop:", err)
		return 1
	}
	fmt.Fprintf(stdout, "sent after %d drafts: %s\n", t.Drafts, t.Draft)
	return 0
}

// usageError prints msg and the usage to stderr and returns exit status 2.
func usageError(stderr io.Writer, fs *flag.FlagSet, msg string) int {
	fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), msg)
	cli.PrintUsage(stderr, usage, fs)
	return 2
}
