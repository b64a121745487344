package telemetry

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tmc/langchaingo/tools"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Tool is a langchaingo tools.Tool whose calls are traced as GenAI
// "execute_tool <name>" spans (gen_ai.operation.name, gen_ai.tool.name,
// the error recorded) and counted in the tool metrics. It keeps what the
// agent of package nodes reads from a tool: the input schema of a
// nodes/tool.SchemaTool (InputSchema) and the side effects of a
// plan.SideEffecter (SideEffects). Make one with Telemetry.Tool.
type Tool struct {
	tools.Tool
	t *Telemetry
}

var _ tools.Tool = (*Tool)(nil)

// Tool wraps tl so that its calls are traced and counted. With tracing
// and metrics off it returns tl itself.
func (t *Telemetry) Tool(tl tools.Tool) tools.Tool {
	if !t.tracing && !t.metered {
		return tl
	}
	return &Tool{Tool: tl, t: t}
}

// Tools wraps each of ts (see Tool), in a new slice.
func (t *Telemetry) Tools(ts []tools.Tool) []tools.Tool {
	out := make([]tools.Tool, len(ts))
	for i, tl := range ts {
		out[i] = t.Tool(tl)
	}
	return out
}

// Unwrap returns the wrapped tool.
func (w *Tool) Unwrap() tools.Tool { return w.Tool }

// InputSchema is the wrapped tool's input schema when it has one (a
// nodes/tool.SchemaTool, such as a tool.Typed), else nil: a tool without
// a schema stays one.
func (w *Tool) InputSchema() json.RawMessage {
	if s, ok := w.Tool.(interface{ InputSchema() json.RawMessage }); ok {
		return s.InputSchema()
	}
	return nil
}

// SideEffects reports whether the wrapped tool says it changes the world
// (plan.SideEffecter), so that plan.ReadOnlyGuard still refuses it.
func (w *Tool) SideEffects() bool {
	s, ok := w.Tool.(interface{ SideEffects() bool })
	return ok && s.SideEffects()
}

// Call implements tools.Tool: it calls the wrapped tool in a span of its
// own, a child of the span in ctx (the node's task span).
func (w *Tool) Call(ctx context.Context, input string) (string, error) {
	name := w.Tool.Name()
	base := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(name)}
	span := trace.SpanFromContext(ctx)
	if w.t.tracing {
		ctx, span = w.t.tracer.Start(ctx, "execute_tool "+name,
			trace.WithAttributes(append(base[:len(base):len(base)], semconv.GenAIToolTypeKey.String("function"))...))
	}
	began := time.Now()
	out, err := w.Tool.Call(ctx, input)
	if w.t.metered {
		mctx := context.WithoutCancel(ctx)
		attrs := metric.WithAttributes(append(base[:len(base):len(base)], KeyOutcome.String(callOutcome(err)))...)
		w.t.m.toolCalls.Add(mctx, 1, attrs)
		w.t.m.toolDur.Record(mctx, time.Since(began).Seconds(), attrs)
	}
	if w.t.tracing {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		}
		span.End()
	}
	return out, err
}
