package agenttrace_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/agenttrace"
)

// Instrument traces an agent's tools (and model) and records its replans.
// The offline delivery agent finds warehouse A out of stock and replans.
func ExampleInstrument() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background()) //nolint:errcheck // example
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	c := delivery.New()
	agent, err := nodes.NewAgent(agenttrace.Instrument(tel, c.AgentConfig()))
	if err != nil {
		panic(err)
	}
	app, err := agent.Compile(graph.WithCheckpointer(memory.New()), graph.WithObserver(tel.Observer()))
	if err != nil {
		panic(err)
	}
	if _, err := app.Invoke(context.Background(), nodes.NewInput(c.Goal(), c.Constraints()...), graph.WithThread("o1001")); err != nil {
		panic(err)
	}
	tools := 0
	for _, s := range exp.GetSpans() {
		if s.Name == "execute_tool stock_check" {
			tools++
		}
		for _, e := range s.Events {
			if e.Name == agenttrace.EventReplan {
				for _, kv := range e.Attributes {
					if kv.Key == agenttrace.KeyTrigger || kv.Key == agenttrace.KeyTriggerStep || kv.Key == agenttrace.KeyStrategy {
						fmt.Printf("%s on %s: %s\n", e.Name, kv.Key, kv.Value.Emit())
					}
				}
			}
		}
	}
	fmt.Println("stock checks:", tools)
	// Output:
	// stategraph.replan on stategraph.replan.trigger: blocked
	// stategraph.replan on stategraph.replan.step: stock_a
	// stategraph.replan on stategraph.replan.strategy: adaptive:partial:template
	// stock checks: 2
}
