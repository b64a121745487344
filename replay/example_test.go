package replay_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/replay"
	"github.com/stategraph/stategraph/state"
)

// Record a run, then replay it with a changed prompt: the report names
// the call that changed, at its step, with a diff.
func ExampleRun() {
	ctx := context.Background()
	saver := memory.New()
	build := func(prompt string, model llms.Model) *graph.StateGraph[qa] {
		m := replay.Model(model)
		write := func(ctx context.Context, s qa) (state.Update[qa], error) {
			out, err := llms.GenerateFromSinglePrompt(ctx, m, prompt+" "+s.Question)
			return state.Writes(answer.Set(out)), err
		}
		return graph.New(schema).AddNode("write", write).AddEdge(graph.Start, "write")
	}

	// Record: the model answers, and its call is stored with the thread.
	app, _ := build("Answer briefly:", &scripted{replies: []string{"Yes."}}).Compile(graph.WithCheckpointer(saver))
	app.Invoke(ctx, state.Writes(question.Set("Do otters hold hands?")), graph.WithThread("t1"))

	// Replay the same graph: answered from the recording, no model needed.
	rep, _ := replay.Run(ctx, build("Answer briefly:", nil), saver, "t1")
	fmt.Println("same graph:", rep.First() == nil, rep.Output.Answer)

	// Replay with a changed prompt.
	rep, _ = replay.Run(ctx, build("Answer at length:", nil), saver, "t1")
	d := rep.First()
	fmt.Println(d.Kind, "at step", d.Step, "in", d.Node)
	fmt.Print(d.Diff)
	// Output:
	// same graph: true Yes.
	// changed_call at step 1 in write
	//  [
	//    {
	//      "role": "human",
	//-    "text": "Answer briefly: Do otters hold hands?"
	//+    "text": "Answer at length: Do otters hold hands?"
	//    }
	//  ]
}
