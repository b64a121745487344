package telemetry_test

import (
	"context"
	"fmt"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

// discard is a span exporter that drops what it is given: the cost
// measured is the spans', not an exporter's.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// chain is W1's graph (graph/bench_test.go): 100 nodes in a chain, each
// adding 1.
func chain(b *testing.B, opts ...graph.CompileOption) *graph.Compiled[doc] {
	g := graph.New(docs)
	prev := graph.Start
	for i := range 100 {
		name := fmt.Sprint("n", i)
		g.AddNode(name, func(ctx context.Context, d doc) (state.Update[doc], error) { return state.Writes(nF.Set(1)), nil }).AddEdge(prev, name)
		prev = name
	}
	c, err := g.Compile(opts...)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkStepOverhead is W1 and W2 (100 steps of a function call, with
// no saver and with the memory saver) with no observer; with Telemetry
// off, as the observer itself and through Observer() (nil); with metrics
// (the SDK's meter provider, no reader); with tracing (the SDK's tracer
// provider, every span sampled, a batch processor, an exporter that drops
// the spans); and with both. ns/step less the "none" row's is the
// per-step overhead; cpu-ns/step is the process's CPU time (every thread:
// the batch processor's, the collector's) a step, which a loaded machine
// disturbs less than the wall clock.
func BenchmarkStepOverhead(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	mp := sdkmetric.NewMeterProvider()
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	observers := []struct {
		name string
		opts []graph.CompileOption
	}{
		{"none", nil},
		{"off", []graph.CompileOption{graph.WithObserver(telemetry.New())}},
		{"off-observer", []graph.CompileOption{graph.WithObserver(telemetry.New().Observer())}},
		{"metrics", []graph.CompileOption{graph.WithObserver(telemetry.New(telemetry.WithMeterProvider(mp)))}},
		{"tracing", []graph.CompileOption{graph.WithObserver(telemetry.New(telemetry.WithTracerProvider(tp)))}},
		{"both", []graph.CompileOption{graph.WithObserver(telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp)))}},
	}
	for _, w := range []string{"W1", "W2"} {
		for _, o := range observers {
			b.Run(w+"/"+o.name, func(b *testing.B) {
				opts := o.opts
				if w == "W2" {
					opts = append(opts[:len(opts):len(opts)], graph.WithCheckpointer(memory.New()))
				}
				c := chain(b, opts...)
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				cpu := cpuTime()
				for b.Loop() {
					i++
					out, err := c.Invoke(ctx, state.Update[doc]{}, graph.WithThread(fmt.Sprint("t", i)), graph.WithRecursionLimit(200))
					if err != nil || out.N != 100 {
						b.Fatalf("n = %d, err = %v", out.N, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/step")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*100), "cpu-ns/step")
			})
		}
	}
}
