package telemetry_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

// A graph compiled with Telemetry as its observer makes a span per run,
// step, task and checkpoint write. Here the spans go to the SDK's
// in-memory exporter and are printed as a tree; a program would export
// them over OTLP (see docs/observability.md).
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // example
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	g := graph.New(docs).
		AddNode("draft", visit("draft")).AddNode("review", visit("review")).
		AddEdge(graph.Start, "draft").AddEdge("draft", "review").AddEdge("review", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(memory.New()), graph.WithObserver(tel.Observer()), graph.WithName("essay"))
	if err != nil {
		panic(err)
	}
	if _, err := app.Invoke(context.Background(), state.Writes(nF.Set(1)), graph.WithThread("essay-1")); err != nil {
		panic(err)
	}

	printTree(exp.GetSpans(), trace.SpanID{}, 0)
	// Output:
	// run essay
	//   checkpoint input
	//   checkpoint loop
	//   step
	//     task draft
	//     checkpoint loop
	//   step
	//     task review
	//     checkpoint loop
}

// printTree prints the spans whose parent is parent, in the order they
// started, each followed by its children.
func printTree(spans tracetest.SpanStubs, parent trace.SpanID, depth int) {
	var children tracetest.SpanStubs
	for _, s := range spans {
		if s.Parent.SpanID() == parent {
			children = append(children, s)
		}
	}
	slices.SortStableFunc(children, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	for _, s := range children {
		fmt.Println(strings.Repeat("  ", depth) + s.Name)
		printTree(spans, s.SpanContext.SpanID(), depth+1)
	}
}

// NewHandler adds the run's ids to the records a node logs (and the
// trace's, when a span is in the context; here there is none).
func ExampleNewHandler() {
	log := slog.New(telemetry.NewHandler(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == string(telemetry.KeyTask) {
				return slog.Attr{} // vary from run to run
			}
			return a
		},
	})))
	g := graph.New(docs).AddNode("draft", func(ctx context.Context, d doc) (state.Update[doc], error) {
		log.InfoContext(ctx, "drafting")
		return state.Writes(nF.Set(1)), nil
	}).AddEdge(graph.Start, "draft").AddEdge("draft", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	if _, err := app.Invoke(context.Background(), state.Writes(nF.Set(1)), graph.WithThread("essay-1"), graph.WithRunID("run-1")); err != nil {
		panic(err)
	}
	// Output:
	// level=INFO msg=drafting stategraph.thread.id=essay-1 stategraph.run.id=run-1 stategraph.step=1 stategraph.node=draft
}

// Model and Tool wrap langchaingo models and tools: their calls are GenAI
// spans, children of the node's task span when called inside a node.
func ExampleTelemetry_Model() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // example
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	m := tel.Model(cannedModel{"Ship from warehouse B."}, telemetry.WithProvider("acme"), telemetry.WithModelName("acme-1"))
	answer, err := m.Call(context.Background(), "Can order O1001 arrive by Friday?")
	if err != nil {
		panic(err)
	}
	fmt.Println(answer)
	s := exp.GetSpans()[0]
	fmt.Println(s.Name)
	for _, kv := range s.Attributes {
		fmt.Printf("%s=%s\n", kv.Key, kv.Value.Emit())
	}
	// Output:
	// Ship from warehouse B.
	// chat acme-1
	// gen_ai.operation.name=chat
	// gen_ai.provider.name=acme
	// gen_ai.request.model=acme-1
	// gen_ai.usage.input_tokens=12
	// gen_ai.usage.output_tokens=5
}
