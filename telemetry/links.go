package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// CheckpointMetadata implements graph.MetadataObserver: the run's trace
// context (W3C traceparent and tracestate by default), stored in the
// metadata of every checkpoint the run writes, so that the run that
// continues the thread — a resume after a crash, an interrupt's answer,
// the next turn — links its span to this one. Nothing without tracing.
func (t *Telemetry) CheckpointMetadata(ctx context.Context) map[string]any {
	if !t.tracing || !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	t.prop.Inject(ctx, c)
	if len(c) == 0 {
		return nil
	}
	md := make(map[string]any, len(c))
	for k, v := range c {
		md[k] = v
	}
	return md
}

// previousRun is the span context stored in a checkpoint's metadata by
// CheckpointMetadata, or an invalid one.
func (t *Telemetry) previousRun(md map[string]any) trace.SpanContext {
	if len(md) == 0 {
		return trace.SpanContext{}
	}
	c := propagation.MapCarrier{}
	for _, k := range t.prop.Fields() {
		if v, ok := md[k].(string); ok {
			c[k] = v
		}
	}
	if len(c) == 0 {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(t.prop.Extract(context.Background(), c))
}
