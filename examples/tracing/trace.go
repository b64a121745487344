package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/examples/internal/models"
	"github.com/stategraph/stategraph/examples/internal/planexec"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/agenttrace"
)

// tracer is the planexec.Tracer of this program: a tracer provider
// exporting to standard error or a file, or over OTLP/HTTP when the
// standard OTEL_EXPORTER_OTLP_* variables name an endpoint.
type tracer struct {
	getenv func(string) string
	stderr io.Writer
	file   string // -spans

	tp    *sdktrace.TracerProvider
	span  trace.Span // the invocation's
	out   *os.File   // the -spans file, closed by Finish
	where string     // where the spans go, for the last line
}

// otlpEndpoint is the OTLP endpoint the environment names, "" for none.
func otlpEndpoint(getenv func(string) string) string {
	if e := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
		return e
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// Start makes the exporter and the provider, and starts the invocation's
// span.
func (t *tracer) Start(ctx context.Context, inv planexec.Invocation, acfg nodes.AgentConfig) (context.Context, nodes.AgentConfig, []graph.CompileOption, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch e := otlpEndpoint(t.getenv); {
	case e != "":
		exp, err = otlptracehttp.New(ctx)
		t.where = "the OTLP/HTTP endpoint " + e
	case t.file != "":
		if t.out, err = os.Create(t.file); err != nil {
			return ctx, acfg, nil, fmt.Errorf("-spans: %w", err)
		}
		exp, err = stdouttrace.New(stdouttrace.WithWriter(t.out), stdouttrace.WithPrettyPrint())
		t.where = t.file
	default:
		exp, err = stdouttrace.New(stdouttrace.WithWriter(t.stderr), stdouttrace.WithPrettyPrint())
		t.where = "standard error (-spans FILE writes them to a file; set OTEL_EXPORTER_OTLP_ENDPOINT to send them to a collector)"
	}
	if err != nil {
		return ctx, acfg, nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName("planexecute")), resource.Environment())
	if err != nil {
		return ctx, acfg, nil, fmt.Errorf("tracing: %w", err)
	}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	tel := telemetry.New(telemetry.WithTracerProvider(t.tp))
	// One trace for this invocation: the runs (a resume after the
	// approval prompt among them) are its children.
	ctx, t.span = t.tp.Tracer("planexecute").Start(ctx, "planexecute", trace.WithAttributes(telemetry.KeyThread.String(inv.Thread)))
	acfg = agenttrace.Instrument(tel, acfg, telemetry.WithModelName(modelName(inv.Model, t.getenv))) // model, tools and replanner
	return ctx, acfg, []graph.CompileOption{graph.WithObserver(tel)}, nil
}

// Finish ends the invocation's span and exports the spans not exported
// yet.
func (t *tracer) Finish(ctx context.Context) (string, error) {
	t.span.End()
	err := t.tp.Shutdown(ctx)
	if t.out != nil {
		err = errors.Join(err, t.out.Close())
	}
	if err != nil {
		return "", fmt.Errorf("tracing: %w", err)
	}
	return t.where, nil
}

// modelName is the model -model names through the environment, for the
// model spans' gen_ai.request.model ("" offline).
func modelName(kind string, getenv func(string) string) string {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	switch kind {
	case "openai":
		return or(getenv("OPENAI_MODEL"), models.DefaultOpenAIModel)
	case "ollama":
		return or(getenv("OLLAMA_MODEL"), models.DefaultOllamaModel)
	}
	return ""
}
