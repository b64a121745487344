// Quickstart: a small graph with a fan-out and a conditional loop. It
// researches a few topics in parallel (one Send per topic), then drafts
// until a router is satisfied, printing each task's update as it streams
// (drafts is a sum: a write of 1 adds one draft), the final state, and the
// graph as Mermaid.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Report is the state: the question, one topic per Send, the notes the
// researchers append, and the drafts.
type Report struct {
	Question string
	Topic    string
	Notes    []string
	Drafts   int
	Text     string
}

var (
	question = state.Value("question", func(r *Report) *string { return &r.Question })
	topic    = state.Value("topic", func(r *Report) *string { return &r.Topic })
	notes    = state.Append("notes", func(r *Report) *[]string { return &r.Notes })
	drafts   = state.Sum("drafts", func(r *Report) *int { return &r.Drafts })
	text     = state.Value("text", func(r *Report) *string { return &r.Text })
	schema   = state.NewSchema(question, topic, notes, drafts, text)
)

func build() (*graph.Compiled[Report], error) {
	g := graph.New(schema).
		AddNode("plan", func(ctx context.Context, r Report) (state.Update[Report], error) {
			return state.Update[Report]{}, nil
		}).
		AddNode("research", func(ctx context.Context, r Report) (state.Update[Report], error) {
			graph.Emit(ctx, "researching "+r.Topic)
			return state.Writes(notes.Set([]string{r.Topic + ": " + strings.Repeat("★", len(r.Topic)%4+1)})), nil
		}).
		AddNode("write", func(ctx context.Context, r Report) (state.Update[Report], error) {
			body := fmt.Sprintf("%s — draft %d from %d notes", r.Question, r.Drafts+1, len(r.Notes))
			return state.Writes(text.Set(body), drafts.Set(1)), nil
		}).
		AddEdge(graph.Start, "plan").
		// Fan out: one research task per topic, each with its own input.
		AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, r Report) ([]graph.Send[Report], error) {
			var sends []graph.Send[Report]
			for _, t := range []string{"latency", "cost", "durability"} {
				sends = append(sends, graph.SendTo("research", Report{Topic: t}))
			}
			return sends, nil
		}), "research").
		// All research tasks of the step trigger write once.
		AddEdge("research", "write").
		// Loop: draft until the third draft.
		AddConditionalEdges("write", graph.Choose(func(ctx context.Context, r Report) (string, error) {
			if r.Drafts < 3 {
				return "write", nil
			}
			return graph.End, nil
		}), "write", graph.End)
	return g.Compile()
}

// run streams the graph on a question, printing each task's update and
// what it emitted, then the final state and the graph as Mermaid.
func run(ctx context.Context, out io.Writer) error {
	app, err := build()
	if err != nil {
		return err
	}
	in := state.Writes(question.Set("Which runtime should we pick?"))
	fmt.Fprint(out, "Each \"wrote\" line is one task's update:\n"+
		"  field = v    sets the field\n"+
		"  field += v   adds v through the field's reducer (drafts is a sum, notes a list)\n"+
		"plan writes nothing: its router sends one research task per topic.\n\n")
	var final Report
	for ev, err := range app.Stream(ctx, in, graph.StreamModes(graph.Updates, graph.Custom, graph.Values)) {
		if err != nil {
			return err
		}
		switch ev.Mode {
		case graph.Custom:
			fmt.Fprintf(out, "step %d  %-8s says: %v\n", ev.Step, ev.Node, ev.Custom)
		case graph.Updates:
			fmt.Fprintf(out, "step %d  %-8s wrote %s\n", ev.Step, ev.Node, describe(ev.Update))
		case graph.Values:
			final = ev.State
		}
	}
	fmt.Fprintf(out, "\nfinal state: %d notes, drafts = %d, text = %q\n\n", len(final.Notes), final.Drafts, final.Text)
	fmt.Fprint(out, app.Mermaid())
	return nil
}

// describe renders a task's writes: "text = …" for a field that keeps the
// last value, "drafts += 1" for one whose reducer adds or appends, and
// "nothing" for a node that only routes.
func describe(u state.Update[Report]) string {
	if len(u.Writes) == 0 {
		return "nothing"
	}
	var parts []string
	for _, w := range u.Writes {
		op := "="
		if i := schema.IndexOf(w); i >= 0 && (schema.Kind(i) == state.KindSum || schema.Kind(i) == state.KindAppend) {
			op = "+="
		}
		v := fmt.Sprint(w.Value())
		if s, ok := w.Value().(string); ok {
			v = fmt.Sprintf("%q", s)
		}
		parts = append(parts, w.Field()+" "+op+" "+v)
	}
	return strings.Join(parts, ", ")
}

func main() {
	if code, exit := parseFlags(flag.NewFlagSet("quickstart", flag.ContinueOnError), os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}
