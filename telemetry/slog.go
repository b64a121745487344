package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/graph"
)

// Log attribute keys for the trace context (the thread, run, step and
// node use the span attribute keys: stategraph.thread.id, …).
const (
	LogTraceID = "trace_id"
	LogSpanID  = "span_id"
)

// Handler is a slog.Handler that adds to each record written inside a
// node where it ran — stategraph.thread.id, stategraph.run.id,
// stategraph.step, stategraph.node, stategraph.task.id, and
// stategraph.namespace in a subgraph and stategraph.task.attempt on a
// retry (graph.RunInfo) — and, wherever the record's context carries a
// valid span, trace_id and span_id. Records must be written with a
// context (slog.InfoContext, Logger.Log…): a record without one carries
// nothing. Attributes go where the record's own do (inside any group
// WithGroup opened). Make one with NewHandler.
type Handler struct{ next slog.Handler }

// NewHandler returns a Handler that hands records, with the run's
// attributes added, to next.
func NewHandler(next slog.Handler) *Handler { return &Handler{next: next} }

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil {
		return h.next.Handle(ctx, r)
	}
	var attrs []slog.Attr
	if in, ok := graph.RunInfo(ctx); ok {
		attrs = make([]slog.Attr, 0, 9)
		if in.ThreadID != "" {
			attrs = append(attrs, slog.String(string(KeyThread), in.ThreadID))
		}
		attrs = append(attrs, slog.String(string(KeyRun), in.RunID), slog.Int(string(KeyStep), in.Step), slog.String(string(KeyNode), in.Node))
		if in.TaskID != "" {
			attrs = append(attrs, slog.String(string(KeyTask), in.TaskID))
		}
		if in.Namespace != "" {
			attrs = append(attrs, slog.String(string(KeyNamespace), in.Namespace))
		}
		if in.Attempt > 1 {
			attrs = append(attrs, slog.Int(string(KeyAttempt), in.Attempt))
		}
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String(LogTraceID, sc.TraceID().String()), slog.String(LogSpanID, sc.SpanID().String()))
	}
	if len(attrs) > 0 {
		r = r.Clone() // the caller's record stays as it was
		r.AddAttrs(attrs...)
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name)}
}
