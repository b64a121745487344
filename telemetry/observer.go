package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/graph"
)

// runKey keys the run a context belongs to (its graph's name), for the
// metrics of its steps, tasks and saves.
type runKey struct{}

type runScope struct{ graph string }

func graphOf(ctx context.Context) string {
	if rs, ok := ctx.Value(runKey{}).(*runScope); ok {
		return rs.graph
	}
	return ""
}

// StartRun implements graph.Observer: a span named "run <graph>" (or
// "run"), a child of the span in ctx (the caller's request, or the
// subgraph's task), linked to the previous run of the thread when it ends.
func (t *Telemetry) StartRun(ctx context.Context, rs graph.RunStart) (context.Context, func(graph.RunEnd)) {
	if !t.tracing && !t.metered {
		return ctx, func(graph.RunEnd) {}
	}
	ctx = context.WithValue(ctx, runKey{}, &runScope{graph: rs.Graph})
	began := time.Now()
	gattr := KeyGraph.String(rs.Graph)
	if t.metered {
		t.m.runsStarted.Add(ctx, 1, metric.WithAttributes(gattr))
	}
	span := trace.SpanFromContext(ctx)
	if t.tracing {
		name := "run"
		if rs.Graph != "" {
			name += " " + rs.Graph
		}
		attrs := make([]attribute.KeyValue, 0, 5)
		attrs = append(attrs, KeyRun.String(rs.RunID))
		if rs.Graph != "" {
			attrs = append(attrs, gattr)
		}
		if rs.ThreadID != "" {
			attrs = append(attrs, KeyThread.String(rs.ThreadID))
		}
		if rs.Namespace != "" {
			attrs = append(attrs, KeyNamespace.String(rs.Namespace))
		}
		if rs.Node != "" {
			attrs = append(attrs, KeyParentNode.String(rs.Node))
		}
		ctx, span = t.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
	}
	return ctx, func(e graph.RunEnd) {
		out := outcome(e.Err)
		if t.metered {
			oattr := metric.WithAttributes(gattr, KeyOutcome.String(out))
			t.m.runsEnded.Add(context.Background(), 1, oattr)
			t.m.runDur.Record(context.Background(), time.Since(began).Seconds(), oattr)
		}
		if !t.tracing {
			return
		}
		if sc := t.previousRun(e.Previous); sc.IsValid() && !sc.Equal(span.SpanContext()) {
			span.AddLink(trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{KeyLink.String(LinkPreviousRun)}})
		}
		span.SetAttributes(KeyOutcome.String(out), KeySteps.Int(e.Steps))
		if e.From != "" {
			span.SetAttributes(KeyFrom.String(e.From))
		}
		if e.Checkpoint != "" {
			span.SetAttributes(KeyCheckpoint.String(e.Checkpoint))
		}
		var ie *graph.InterruptError
		if errors.As(e.Err, &ie) {
			for _, in := range ie.Interrupts {
				if in.When != "during" { // a node's own interrupt is on its task
					span.AddEvent(EventInterrupt, trace.WithAttributes(interruptAttrs(in)...))
				}
			}
		}
		endSpan(span, out, e.Err)
	}
}

// StartStep implements graph.Observer: a span named "step", a child of
// the run's.
func (t *Telemetry) StartStep(ctx context.Context, ss graph.StepStart) (context.Context, func(graph.StepEnd)) {
	if !t.tracing && !t.metered {
		return ctx, func(graph.StepEnd) {}
	}
	began := time.Now()
	span := trace.SpanFromContext(ctx)
	if t.tracing {
		attrs := []attribute.KeyValue{KeyStep.Int(ss.Step), KeyStepNodes.StringSlice(ss.Nodes)}
		if ss.Restored > 0 {
			attrs = append(attrs, KeyStepRestored.Int(ss.Restored))
		}
		if ss.Namespace != "" {
			attrs = append(attrs, KeyNamespace.String(ss.Namespace))
		}
		ctx, span = t.tracer.Start(ctx, "step", trace.WithAttributes(attrs...))
	}
	return ctx, func(e graph.StepEnd) {
		if t.metered {
			g := graphOf(ctx)
			t.m.stepDur.Record(context.Background(), time.Since(began).Seconds(),
				t.c.step.get(g, func() []attribute.KeyValue { return []attribute.KeyValue{KeyGraph.String(g)} }))
		}
		if t.tracing {
			endSpan(span, outcome(e.Err), e.Err)
		}
	}
}

// StartTask implements graph.Observer: a span named "task <node>", a
// child of the step's, in whose context the node runs (so the model and
// tool calls it makes nest under it).
func (t *Telemetry) StartTask(ctx context.Context, in graph.Info) (context.Context, func(graph.TaskEnd)) {
	if !t.tracing && !t.metered {
		return ctx, func(graph.TaskEnd) {}
	}
	began := time.Now()
	span := trace.SpanFromContext(ctx)
	if t.tracing {
		attrs := make([]attribute.KeyValue, 0, 6)
		attrs = append(attrs, KeyNode.String(in.Node), KeyStep.Int(in.Step))
		if in.TaskID != "" {
			attrs = append(attrs, KeyTask.String(in.TaskID))
		}
		if in.CheckpointID != "" {
			attrs = append(attrs, KeyCheckpoint.String(in.CheckpointID))
		}
		if in.Send >= 0 {
			attrs = append(attrs, KeySend.Int(in.Send))
		}
		if in.Namespace != "" {
			attrs = append(attrs, KeyNamespace.String(in.Namespace))
		}
		ctx, span = t.tracer.Start(ctx, "task "+in.Node, trace.WithAttributes(attrs...))
	}
	return ctx, func(e graph.TaskEnd) {
		out := outcome(e.Err)
		if len(e.Interrupts) > 0 && e.Err == nil {
			out = OutcomeInterrupted
		}
		if t.metered {
			k := nodeKey{graphOf(ctx), in.Node, out}
			if e.Attempts > 1 {
				k := nodeKey{k.graph, k.node, ""}
				t.m.taskRetries.Add(context.Background(), int64(e.Attempts-1), t.c.retries.get(k, k.attrs))
			}
			t.m.taskDur.Record(context.Background(), time.Since(began).Seconds(), t.c.task.get(k, k.attrs))
		}
		if !t.tracing {
			return
		}
		span.SetAttributes(KeyAttempts.Int(e.Attempts), KeyRetries.Int(max(e.Attempts-1, 0)), KeyWrites.Int(e.Writes), KeyOutcome.String(out))
		for _, iv := range e.Interrupts {
			span.AddEvent(EventInterrupt, trace.WithAttributes(interruptAttrs(iv)...))
		}
		endSpan(span, out, e.Err)
	}
}

// StartSave implements graph.Observer: a span named "checkpoint
// <source>", a child of the step's (or the run's, for the input and first
// loop checkpoints).
func (t *Telemetry) StartSave(ctx context.Context, ss graph.SaveStart) (context.Context, func(graph.SaveEnd)) {
	if !t.tracing && !t.metered {
		return ctx, func(graph.SaveEnd) {}
	}
	saver := saverName(ss.Saver)
	span := trace.SpanFromContext(ctx)
	if t.tracing {
		attrs := []attribute.KeyValue{
			KeyCheckpoint.String(ss.CheckpointID), KeySource.String(string(ss.Source)), KeyStep.Int(ss.Step),
			KeySaver.String(saver), KeyBytes.Int(ss.Bytes), KeyChannels.Int(ss.Channels), KeyDurability.String(ss.Durability.String()),
		}
		if ss.Namespace != "" {
			attrs = append(attrs, KeyNamespace.String(ss.Namespace))
		}
		ctx, span = t.tracer.Start(ctx, "checkpoint "+string(ss.Source), trace.WithAttributes(attrs...))
	}
	return ctx, func(e graph.SaveEnd) {
		if t.metered {
			k := saveKey{saver, string(ss.Source)}
			t.m.saveDur.Record(context.Background(), e.Duration.Seconds(), t.c.save.get(k, func() []attribute.KeyValue {
				return []attribute.KeyValue{KeySaver.String(k.saver), KeySource.String(k.source)}
			}))
			t.m.saveSize.Record(context.Background(), int64(ss.Bytes), t.c.size.get(saver, func() []attribute.KeyValue {
				return []attribute.KeyValue{KeySaver.String(saver)}
			}))
		}
		if t.tracing {
			out := OutcomeSuccess
			if e.Err != nil {
				out = OutcomeError
			}
			endSpan(span, out, e.Err)
		}
	}
}

// attrs are the metric attributes of a task (graph, node, and outcome
// when set).
func (k nodeKey) attrs() []attribute.KeyValue {
	a := []attribute.KeyValue{KeyGraph.String(k.graph), KeyNode.String(k.node)}
	if k.outcome != "" {
		a = append(a, KeyOutcome.String(k.outcome))
	}
	return a
}

// outcome names how a run, step or task ended.
func outcome(err error) string {
	var ie *graph.InterruptError
	switch {
	case err == nil:
		return OutcomeSuccess
	case errors.As(err, &ie):
		return OutcomeInterrupted
	case errors.Is(err, context.Canceled):
		return OutcomeCancelled
	default:
		return OutcomeError
	}
}

// endSpan ends span, recording err unless the work only stopped at
// interrupts (which is not a failure).
func endSpan(span trace.Span, out string, err error) {
	if err != nil && out != OutcomeInterrupted {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// maxValue bounds the interrupt payload an event carries.
const maxValue = 256

func interruptAttrs(in graph.Interruption) []attribute.KeyValue {
	attrs := []attribute.KeyValue{KeyInterruptID.String(in.ID), KeyInterruptWhen.String(in.When), KeyNode.String(in.Node)}
	if in.Value != nil {
		b, err := json.Marshal(in.Value)
		v := string(b)
		if err != nil {
			v = fmt.Sprint(in.Value)
		}
		if len(v) > maxValue {
			v = v[:maxValue] + "…"
		}
		attrs = append(attrs, KeyInterruptValue.String(v))
	}
	return attrs
}

// saverName is the checkpointer's type without its package path and
// pointer: "sqlite.Saver".
func saverName(s any) string {
	if s == nil {
		return ""
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", s), "*")
}
