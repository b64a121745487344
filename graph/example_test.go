package graph_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Essay is the state of the examples: a topic, drafts appended by the
// writer, and the number of revisions.
type Essay struct {
	Topic     string
	Drafts    []string
	Revisions int
	Approved  bool
}

var (
	topic     = state.Value("topic", func(e *Essay) *string { return &e.Topic })
	drafts    = state.Append("drafts", func(e *Essay) *[]string { return &e.Drafts })
	revisions = state.Sum("revisions", func(e *Essay) *int { return &e.Revisions })
	approved  = state.Value("approved", func(e *Essay) *bool { return &e.Approved })
	essay     = state.NewSchema(topic, drafts, revisions, approved)
)

func write(ctx context.Context, e Essay) (state.Update[Essay], error) {
	draft := fmt.Sprintf("%s, draft %d", e.Topic, e.Revisions+1)
	return state.Writes(drafts.Set([]string{draft}), revisions.Set(1)), nil
}

func enough(ctx context.Context, e Essay) (string, error) {
	if e.Revisions < 3 {
		return "write", nil
	}
	return graph.End, nil
}

// A loop: the writer drafts until a router says there are enough drafts.
func Example() {
	g := graph.New(essay).
		AddNode("write", write).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", graph.End)
	app, err := g.Compile()
	if err != nil {
		panic(err)
	}
	out, err := app.Invoke(context.Background(), state.Writes(topic.Set("Go")))
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(out.Drafts, " | "))
	fmt.Print(app.Mermaid())
	// Output:
	// Go, draft 1 | Go, draft 2 | Go, draft 3
	// graph TD;
	// 	__start__ --> write;
	// 	write -.-> __end__;
	// 	write -.-> write;
}

// Stream yields events as the run goes; here the updates of each node.
func ExampleCompiled_Stream() {
	g := graph.New(essay).
		AddNode("write", write).
		AddNode("review", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(approved.Set(true)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "review")
	app, _ := g.Compile()
	for ev, err := range app.Stream(context.Background(), state.Writes(topic.Set("iterators")), graph.StreamModes(graph.Updates)) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("step %d: %s wrote %d fields\n", ev.Step, ev.Node, len(ev.Update.Writes))
	}
	// Output:
	// step 1: write wrote 2 fields
	// step 2: review wrote 1 fields
}

// Send fans work out: each Send is a task with its own input, and the
// append reducer collects the results in Send order.
func ExampleFanOut() {
	g := graph.New(essay).
		AddNode("plan", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Update[Essay]{}, nil
		}).
		AddNode("write", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			return state.Writes(drafts.Set([]string{"on " + e.Topic})), nil
		}).
		AddEdge(graph.Start, "plan").
		AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, e Essay) ([]graph.Send[Essay], error) {
			var sends []graph.Send[Essay]
			for _, t := range []string{"maps", "slices", "channels"} {
				sends = append(sends, graph.SendTo("write", Essay{Topic: t}))
			}
			return sends, nil
		}), "write")
	app, _ := g.Compile()
	out, _ := app.Invoke(context.Background(), state.Update[Essay]{})
	fmt.Println(out.Drafts)
	// Output:
	// [on maps on slices on channels]
}

// A checkpointed thread pauses for a human and resumes with the answer.
func ExampleInterrupt() {
	g := graph.New(essay).
		AddNode("write", write).
		AddNode("approve", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			ok, err := graph.Interrupt[bool](ctx, "publish "+e.Drafts[len(e.Drafts)-1]+"?")
			if err != nil {
				return state.Update[Essay]{}, err
			}
			return state.Writes(approved.Set(ok)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", "approve")
	app, _ := g.Compile(graph.WithCheckpointer(memory.New()))
	ctx := context.Background()

	_, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("essay-1"))
	if ie, ok := err.(*graph.InterruptError); ok {
		fmt.Println("asked:", ie.Interrupts[0].Value)
	}
	out, err := app.Invoke(ctx, state.Update[Essay]{}, graph.WithThread("essay-1"), graph.Resume(true))
	fmt.Println("approved:", out.Approved, err)
	// Output:
	// asked: publish Go, draft 1?
	// approved: true <nil>
}

// Payload reads an interrupt's payload as the type the node gave it, also
// when it comes back from a checkpoint as JSON (here through State, as in
// another process that answers the question).
func ExamplePayload() {
	type Question struct {
		Prompt  string
		Choices []string
	}
	g := graph.New(essay).
		AddNode("ask", func(ctx context.Context, e Essay) (state.Update[Essay], error) {
			ok, err := graph.Interrupt[bool](ctx, Question{Prompt: "publish?", Choices: []string{"yes", "no"}})
			if err != nil {
				return state.Update[Essay]{}, err
			}
			return state.Writes(approved.Set(ok)), nil
		}).
		AddEdge(graph.Start, "ask")
	app, _ := g.Compile(graph.WithCheckpointer(memory.New()))
	ctx := context.Background()
	_, _ = app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t"))

	snap, _ := app.State(ctx, graph.WithThread("t"))
	in := snap.Interrupts[0]
	q, err := graph.Payload[Question](in)
	fmt.Printf("%T -> %+v %v\n", in.Value, q, err)
	// Output:
	// map[string]interface {} -> {Prompt:publish? Choices:[yes no]} <nil>
}

// History lists a thread's checkpoints, newest first; any of them can be
// replayed or forked.
func ExampleCompiled_History() {
	g := graph.New(essay).AddNode("write", write).AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", graph.End)
	app, _ := g.Compile(graph.WithCheckpointer(memory.New()))
	ctx := context.Background()
	if _, err := app.Invoke(ctx, state.Writes(topic.Set("Go")), graph.WithThread("t")); err != nil {
		panic(err)
	}
	for snap, err := range app.History(ctx, graph.WithThread("t")) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("step %2d %-5s drafts=%d next=%v\n", snap.Metadata.Step, snap.Metadata.Source, len(snap.Values.Drafts), snap.Next)
	}
	// Output:
	// step  3 loop  drafts=3 next=[]
	// step  2 loop  drafts=2 next=[write]
	// step  1 loop  drafts=1 next=[write]
	// step  0 loop  drafts=0 next=[write]
	// step -1 input drafts=0 next=[__start__]
}
