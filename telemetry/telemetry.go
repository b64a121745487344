package telemetry

import (
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/stategraph/stategraph/graph"
)

// ScopeName is the instrumentation scope of this package's tracer and
// meter.
const ScopeName = "github.com/stategraph/stategraph/telemetry"

// Telemetry turns what the graph runtime, models and tools do into
// OpenTelemetry spans and metrics. It is a graph.MetadataObserver: pass it
// to graph.WithObserver. Make one with New; it is safe for concurrent use.
//
// Tracing is on only with WithTracerProvider, metrics only with
// WithMeterProvider; with neither, every method is a no-op.
type Telemetry struct {
	mp      metric.MeterProvider
	tp      trace.TracerProvider
	tracer  trace.Tracer
	tracing bool
	metered bool
	prop    propagation.TextMapPropagator
	m       instruments
	c       caches
}

var _ graph.MetadataObserver = (*Telemetry)(nil)

// Option configures a Telemetry.
type Option func(*Telemetry)

// WithTracerProvider turns tracing on: spans go to tp. Without it
// Telemetry makes no spans (the global provider is not used).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(t *Telemetry) {
		if tp != nil {
			t.tp, t.tracing = tp, true
		}
	}
}

// WithMeterProvider turns metrics on: instruments are made on mp. Without
// it Telemetry records no metrics.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(t *Telemetry) {
		if mp != nil {
			t.m = newInstruments(mp.Meter(ScopeName))
			t.mp, t.metered = mp, true
		}
	}
}

// WithPropagator sets how a trace context is written into checkpoint
// metadata and River job metadata, and read back (default: W3C Trace
// Context, the traceparent and tracestate entries).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(t *Telemetry) {
		if p != nil {
			t.prop = p
		}
	}
}

// New returns a Telemetry. With no options it does nothing.
func New(opts ...Option) *Telemetry {
	t := &Telemetry{tp: tracenoop.NewTracerProvider(), mp: metricnoop.NewMeterProvider(), prop: propagation.TraceContext{}}
	t.m = newInstruments(metricnoop.NewMeterProvider().Meter(ScopeName))
	for _, o := range opts {
		o(t)
	}
	t.tracer = t.tp.Tracer(ScopeName)
	return t
}

// TracerProvider returns the provider spans go to (a no-op one when
// tracing is off), for integrations such as package telemetry/rivertrace.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tp }

// MeterProvider returns the provider metrics go to (a no-op one when
// metrics are off), for integrations such as package
// telemetry/workermetrics.
func (t *Telemetry) MeterProvider() metric.MeterProvider { return t.mp }

// Metered reports whether metrics are recorded.
func (t *Telemetry) Metered() bool { return t.metered }

// Propagator returns the propagator of WithPropagator.
func (t *Telemetry) Propagator() propagation.TextMapPropagator { return t.prop }

// Tracing reports whether spans are made.
func (t *Telemetry) Tracing() bool { return t.tracing }

// Observer returns t as a graph.Observer, or nil when tracing and
// metrics are both off, so that graph.WithObserver(t.Observer()) costs a
// run nothing then (the runtime skips its observer calls altogether,
// whereas t itself, off, is still called at every step and task).
func (t *Telemetry) Observer() graph.Observer {
	if !t.tracing && !t.metered {
		return nil
	}
	return t
}
