package rivertrace

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/worker"
)

// Attribute keys of the insert and process spans, beside the messaging
// semantic conventions' (messaging.system "river",
// messaging.operation.type, messaging.destination.name the queue,
// messaging.message.id the job id).
const (
	// KeyJobKind is the River job's kind ("stategraph_run" for runs).
	KeyJobKind = attribute.Key("river.job.kind")
	// KeyJobAttempt is the job's attempt, from 1.
	KeyJobAttempt = attribute.Key("river.job.attempt")
	// KeyJobs is how many jobs an insert span inserted.
	KeyJobs = attribute.Key("river.jobs")
)

// Middleware propagates the trace context through River job metadata. It
// is safe for concurrent use. Make one with New.
type Middleware struct {
	river.MiddlewareDefaults
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

var (
	_ rivertype.JobInsertMiddleware = (*Middleware)(nil)
	_ rivertype.WorkerMiddleware    = (*Middleware)(nil)
)

// New returns the middleware for t's tracer provider and propagator.
// With tracing off it still carries a trace context it finds (one the
// caller's own instrumentation started) but makes no spans.
func New(t *telemetry.Telemetry) *Middleware {
	return &Middleware{tracer: t.TracerProvider().Tracer(telemetry.ScopeName + "/rivertrace"), prop: t.Propagator()}
}

// WorkerOption is worker.WithRiverConfig adding New(t) to River's
// middleware; it combines with the Client's other WithRiverConfig options.
func WorkerOption(t *telemetry.Telemetry) worker.Option {
	mw := New(t)
	return worker.WithRiverConfig(func(c *river.Config) { c.Middleware = append(c.Middleware, mw) })
}

// InsertMany implements rivertype.JobInsertMiddleware: with a span in
// ctx, the jobs are inserted in a producer span whose trace context each
// job's metadata carries.
func (m *Middleware) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if !trace.SpanContextFromContext(ctx).IsValid() || len(params) == 0 {
		return doInner(ctx)
	}
	kind, queue := params[0].Kind, params[0].Queue
	ctx, span := m.tracer.Start(ctx, "insert "+kind, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		semconv.MessagingSystemKey.String("river"), semconv.MessagingOperationTypeSend,
		semconv.MessagingDestinationName(queue), KeyJobKind.String(kind), KeyJobs.Int(len(params))))
	defer span.End()
	carrier := propagation.MapCarrier{}
	m.prop.Inject(ctx, carrier)
	for _, p := range params {
		md, err := withCarrier(p.Metadata, carrier)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return nil, err
		}
		p.Metadata = md
	}
	res, err := doInner(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	} else if len(res) == 1 && res[0].Job != nil {
		span.SetAttributes(semconv.MessagingMessageID(strconv.FormatInt(res[0].Job.ID, 10)))
	}
	return res, err
}

// Work implements rivertype.WorkerMiddleware: the job runs in a consumer
// span, a child of the trace context its metadata carries (or of a new
// trace without one).
func (m *Middleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if c := carrierOf(job.Metadata, m.prop.Fields()); len(c) > 0 {
		ctx = m.prop.Extract(ctx, c)
	}
	ctx, span := m.tracer.Start(ctx, "process "+job.Kind, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		semconv.MessagingSystemKey.String("river"), semconv.MessagingOperationTypeProcess,
		semconv.MessagingDestinationName(job.Queue), semconv.MessagingMessageID(strconv.FormatInt(job.ID, 10)),
		KeyJobKind.String(job.Kind), KeyJobAttempt.Int(job.Attempt)))
	defer span.End()
	err := doInner(ctx)
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
	case errors.As(err, &snooze):
		span.AddEvent("river.snooze") // waiting for its turn: not a failure
	default:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// withCarrier returns the job metadata md with the carrier's entries set.
func withCarrier(md []byte, c propagation.MapCarrier) ([]byte, error) {
	m := map[string]any{}
	if len(md) > 0 {
		if err := json.Unmarshal(md, &m); err != nil {
			return nil, errors.New("rivertrace: job metadata is not a JSON object: " + err.Error())
		}
	}
	for k, v := range c {
		m[k] = v
	}
	return json.Marshal(m)
}

// carrierOf reads the propagator's fields from job metadata.
func carrierOf(md []byte, fields []string) propagation.MapCarrier {
	if len(md) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(md, &m) != nil {
		return nil
	}
	c := propagation.MapCarrier{}
	for _, f := range fields {
		if v, ok := m[f].(string); ok {
			c[f] = v
		}
	}
	return c
}
