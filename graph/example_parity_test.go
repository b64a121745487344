package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Branches of uneven length join in a deferred node: it runs once, after
// the longer branch, whatever edges reach it first.
func ExampleWithDefer() {
	log := func(name string) graph.NodeFunc[Essay] {
		return func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(drafts.Set([]string{name})), nil
		}
	}
	app, err := graph.New(essay).
		AddNode("outline", log("outline")).
		AddNode("draft", log("draft")).
		AddNode("polish", log("polish")).
		AddNode("title", log("title")).
		AddNode("publish", log("publish"), graph.WithDefer()).
		AddEdge(graph.Start, "outline").
		AddEdge("outline", "draft").AddEdge("draft", "polish").AddEdge("polish", "publish").
		AddEdge("outline", "title").AddEdge("title", "publish").
		Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Update[Essay]{})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(out.Drafts, " → "))
	// Output:
	// outline → draft → title → polish → publish
}

// section is the argument of the mapper: its own type, not the state.
type section struct {
	Heading string
	Words   int
}

// A map-reduce whose mapper takes its own argument type: each Send made
// with SendArg carries a section.
func ExampleSendArg() {
	g := graph.New(essay).
		AddNode("plan", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Update[Essay]{Sends: []graph.Send[Essay]{
				graph.SendArg[Essay]("write_section", section{"Intro", 100}),
				graph.SendArg[Essay]("write_section", section{"Body", 800}),
			}}, nil
		}, graph.WithDestinations("write_section"))
	graph.AddArgNode(g, "write_section", func(ctx context.Context, s section) (state.Update[Essay], error) {
		return state.Writes(drafts.Set([]string{fmt.Sprintf("%s (%d words)", s.Heading, s.Words)})), nil
	})
	app, err := g.AddEdge(graph.Start, "plan").Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Update[Essay]{})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(out.Drafts, ", "))
	// Output:
	// Intro (100 words), Body (800 words)
}

// Review is the state of a subgraph over its own type.
type Review struct {
	Text  string
	Notes []string
}

// A subgraph over another state type is a node with mapping functions:
// the essay's last draft goes in, the review's notes come out as drafts.
func ExampleAddSubgraphMapped() {
	text := state.Value("text", func(r *Review) *string { return &r.Text })
	notes := state.Append("notes", func(r *Review) *[]string { return &r.Notes })
	review, err := graph.New(state.NewSchema(text, notes)).
		AddNode("check", func(ctx context.Context, r Review) (state.Update[Review], error) {
			return state.Writes(notes.Set([]string{"reviewed: " + r.Text})), nil
		}).
		AddEdge(graph.Start, "check").
		Compile()
	if err != nil {
		panic(err)
	}
	g := graph.New(essay).AddNode("write", write)
	graph.AddSubgraphMapped(g, "review", review,
		func(e Essay) state.Update[Review] { return state.Writes(text.Set(e.Drafts[len(e.Drafts)-1])) },
		func(e Essay, r Review) state.Update[Essay] { return state.Writes(drafts.Set(r.Notes)) })
	app, err := g.AddEdge(graph.Start, "write").AddEdge("write", "review").Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Writes(topic.Set("Go")))
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(out.Drafts, " | "))
	// Output:
	// Go, draft 1 | reviewed: Go, draft 1
}

// Several supersteps of updates in one call: a thread written as if the
// input and the writer had run, then continued from there.
func ExampleCompiled_BulkUpdateState() {
	app, err := graph.New(essay).
		AddNode("write", write).
		AddNode("approve", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(approved.Set(true)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "approve").
		Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, err = app.BulkUpdateState(ctx, [][]graph.StateUpdate[Essay]{
		{{Update: state.Writes(topic.Set("Go")), AsNode: graph.Start}},
		{{Update: state.Writes(drafts.Set([]string{"imported draft"}), revisions.Set(1)), AsNode: "write"}},
	}, graph.WithThread("t"))
	if err != nil {
		panic(err)
	}
	snap, _ := app.State(ctx, graph.WithThread("t"))
	fmt.Println("next:", snap.Next)
	out, err := app.Invoke(ctx, state.Update[Essay]{}, graph.WithThread("t"))
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Drafts, out.Approved)
	// Output:
	// next: [approve]
	// [imported draft] true
}

// verdict is the answer the review asks for; its JSON Schema travels
// with the interrupt.
type verdict struct {
	Approved bool   `json:"approved"`
	Comment  string `json:"comment,omitempty"`
}

// An Interrupt[T] says what answer it expects, and a resume that does
// not fit is refused, naming the field, before anything is stored.
func ExampleWithStrictAnswers() {
	app, err := graph.New(essay).
		AddNode("review", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			v, err := graph.Interrupt[verdict](ctx, "approve?")
			if err != nil {
				return state.Update[Essay]{}, err
			}
			return state.Writes(approved.Set(v.Approved)), nil
		}).
		AddEdge(graph.Start, "review").
		Compile(graph.WithCheckpointer(memory.New()), graph.WithStrictAnswers())
	if err != nil {
		panic(err)
	}
	ctx, th := context.Background(), graph.WithThread("t")
	_, err = app.Invoke(ctx, state.Writes(topic.Set("Go")), th)
	var ie *graph.InterruptError
	if errors.As(err, &ie) {
		fmt.Println(string(ie.Interrupts[0].Schema))
	}
	_, err = app.Invoke(ctx, state.Update[Essay]{}, th, graph.Resume(json.RawMessage(`{"approved":"yes"}`)))
	fmt.Println(errors.Is(err, graph.ErrInvalidAnswer), strings.Contains(err.Error(), `field "approved": want boolean, got string "yes"`))
	_, err = app.Invoke(ctx, state.Update[Essay]{}, th, graph.Resume(json.RawMessage(`{"approved":true,"score":5}`)))
	fmt.Println(strings.Contains(err.Error(), `field "score": not a field of the answer`))
	out, err := app.Invoke(ctx, state.Update[Essay]{}, th, graph.Resume(verdict{Approved: true}))
	fmt.Println(out.Approved, err)
	// Output:
	// {"properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"],"type":"object"}
	// true true
	// true
	// true <nil>
}

// State WithSubgraphs gives a pending subgraph task its subgraph's own
// snapshot.
func ExampleWithSubgraphs() {
	inner, err := graph.New(essay).
		AddNode("write", write).
		AddNode("review", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(approved.Set(true)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "review").
		Compile(graph.WithInterruptBefore("review"))
	if err != nil {
		panic(err)
	}
	app, err := graph.New(essay).AddSubgraph("inner", inner).AddEdge(graph.Start, "inner").
		Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	ctx, th := context.Background(), graph.WithThread("t")
	_, _ = app.Invoke(ctx, state.Writes(topic.Set("Go")), th)
	snap, err := app.State(ctx, th, graph.WithSubgraphs())
	if err != nil {
		panic(err)
	}
	sub := snap.Tasks[0].State.(*graph.Snapshot[Essay])
	fmt.Println(snap.Next, sub.Next, sub.Values.Drafts)
	fmt.Println(strings.HasPrefix(sub.Config.Namespace, "inner:"))
	// Output:
	// [inner] [review] [Go, draft 1]
	// true
}
