package main

import (
	"context"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stategraph/stategraph/telemetry"
)

// tracing is the -trace setup: a tracer provider exporting to stdout, or
// over OTLP/HTTP when the standard OTEL_EXPORTER_OTLP_* variables name an
// endpoint.
type tracing struct {
	tel   *telemetry.Telemetry
	tp    *sdktrace.TracerProvider
	where string // where the spans go, for the last line
}

// otlpEndpoint is the OTLP endpoint the environment names, "" for none.
func otlpEndpoint(getenv func(string) string) string {
	if e := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// newTracing starts the exporter. The OTLP exporter reads the rest of its
// configuration (headers, timeout, compression, certificates) from the
// OTEL_EXPORTER_OTLP_* variables itself; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (default "planexecute").
func newTracing(ctx context.Context, stdout io.Writer, getenv func(string) string) (*tracing, error) {
	var exp sdktrace.SpanExporter
	var err error
	where := "standard output (set OTEL_EXPORTER_OTLP_ENDPOINT to send them to a collector)"
	if e := otlpEndpoint(getenv); e != "" {
		exp, err = otlptracehttp.New(ctx)
		where = "the OTLP/HTTP endpoint " + e
	} else {
		exp, err = stdouttrace.New(stdouttrace.WithWriter(stdout), stdouttrace.WithPrettyPrint())
	}
	if err != nil {
		return nil, fmt.Errorf("-trace: %w", err)
	}
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName("planexecute")), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("-trace: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &tracing{tel: telemetry.New(telemetry.WithTracerProvider(tp)), tp: tp, where: where}, nil
}

// shutdown exports the spans not yet exported and stops the exporter.
func (t *tracing) shutdown(ctx context.Context) error {
	return t.tp.Shutdown(context.WithoutCancel(ctx))
}

// modelName is the model -model names through the environment, for the
// model spans' gen_ai.request.model ("" offline).
func modelName(kind string, getenv func(string) string) string {
	switch kind {
	case "openai":
		return orDefault(getenv("OPENAI_MODEL"), models.DefaultOpenAIModel)
	case "ollama":
		return orDefault(getenv("OLLAMA_MODEL"), models.DefaultOllamaModel)
	}
	return ""
}
