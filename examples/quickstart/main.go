// Quickstart: a small graph with a fan-out and a conditional loop. It
// researches a few topics in parallel (one Send per topic), then drafts
// until a router is satisfied, printing each step as it streams and the
// graph as Mermaid.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
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

func main() {
	app, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	in := state.Writes(question.Set("Which runtime should we pick?"))
	for ev, err := range app.Stream(ctx, in, graph.StreamModes(graph.Updates, graph.Custom)) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		switch ev.Mode {
		case graph.Custom:
			fmt.Printf("step %d  %-8s says: %v\n", ev.Step, ev.Node, ev.Custom)
		case graph.Updates:
			var fields []string
			for _, w := range ev.Update.Writes {
				fields = append(fields, fmt.Sprintf("%s=%v", w.Field(), w.Value()))
			}
			fmt.Printf("step %d  %-8s wrote %s\n", ev.Step, ev.Node, strings.Join(fields, ", "))
		}
	}
	fmt.Println()
	fmt.Print(app.Mermaid())
}
