package rivertrace_test

import (
	"context"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/rivertrace"
	"github.com/stategraph/stategraph/worker"
)

// A worker and an enqueuing process both add the middleware: a run
// enqueued under a span (an HTTP request's) is worked in that trace. It
// needs a database, so it has no Output: go test compiles it only.
func ExampleWorkerOption() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("STATEGRAPH_POSTGRES_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	tp := sdktrace.NewTracerProvider() // with an exporter: sdktrace.WithBatcher(otlpExporter)
	defer tp.Shutdown(ctx)             //nolint:errcheck // example
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	reg := worker.NewRegistry() // worker.Register(reg, …) each graph, compiled with graph.WithObserver(tel.Observer())
	client, err := worker.New(pool, reg, rivertrace.WorkerOption(tel))
	if err != nil {
		log.Fatal(err)
	}
	_ = client
}

// A program that configures River itself adds the middleware to
// river.Config.Middleware.
func ExampleNew() {
	tel := telemetry.New(telemetry.WithTracerProvider(sdktrace.NewTracerProvider()))
	opt := worker.WithRiverConfig(func(c *river.Config) {
		c.Middleware = append(c.Middleware, rivertype.Middleware(rivertrace.New(tel)))
		c.MaxAttempts = 10
	})
	_ = opt
}
