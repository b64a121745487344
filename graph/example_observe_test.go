package graph_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// printer is an Observer that prints what a run does, indented by depth.
type printer struct{ depth int }

func (p *printer) line(format string, args ...any) {
	fmt.Printf("%s%s\n", strings.Repeat("  ", p.depth), fmt.Sprintf(format, args...))
}

func (p *printer) StartRun(ctx context.Context, r graph.RunStart) (context.Context, func(graph.RunEnd)) {
	p.line("run on thread %s", r.ThreadID)
	p.depth++
	return ctx, func(e graph.RunEnd) { p.depth--; p.line("run ended after %d steps, err=%v", e.Steps, e.Err) }
}

func (p *printer) StartStep(ctx context.Context, s graph.StepStart) (context.Context, func(graph.StepEnd)) {
	p.line("step %d: %v", s.Step, s.Nodes)
	return ctx, func(graph.StepEnd) {}
}

func (p *printer) StartTask(ctx context.Context, in graph.Info) (context.Context, func(graph.TaskEnd)) {
	return ctx, func(e graph.TaskEnd) { p.line("  %s wrote %d fields", in.Node, e.Writes) }
}

func (p *printer) StartSave(ctx context.Context, s graph.SaveStart) (context.Context, func(graph.SaveEnd)) {
	return ctx, func(graph.SaveEnd) { p.line("saved the %s checkpoint of step %d", s.Source, s.Step) }
}

// An Observer sees each run, step, task and checkpoint write; package
// telemetry turns them into OpenTelemetry spans and metrics.
func ExampleWithObserver() {
	g := graph.New(essay).
		AddNode("write", write).
		AddEdge(graph.Start, "write").
		AddConditionalEdges("write", graph.Choose(enough), "write", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(memory.New()), graph.WithObserver(&printer{}))
	if err != nil {
		panic(err)
	}
	if _, err := app.Invoke(context.Background(), state.Writes(topic.Set("Go"), revisions.Set(1)), graph.WithThread("essay-1")); err != nil {
		panic(err)
	}
	// Output:
	// run on thread essay-1
	//   saved the input checkpoint of step -1
	//   saved the loop checkpoint of step 0
	//   step 1: [write]
	//     write wrote 2 fields
	//   saved the loop checkpoint of step 1
	//   step 2: [write]
	//     write wrote 2 fields
	//   saved the loop checkpoint of step 2
	// run ended after 2 steps, err=<nil>
}
