package workermetrics

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/worker"
)

// Metric names.
const (
	// MetricRuns is the number of active runs, by stategraph.run.state
	// (pending: waiting for a worker; running: being executed).
	MetricRuns = "stategraph.worker.runs"
	// MetricTakeovers counts the runs this process's worker re-queued
	// from silent workers.
	MetricTakeovers = "stategraph.worker.takeovers"
)

// KeyRunState is the attribute of MetricRuns.
const KeyRunState = attribute.Key("stategraph.run.state")

var (
	pending = metric.WithAttributes(KeyRunState.String("pending"))
	running = metric.WithAttributes(KeyRunState.String("running"))
)

// Register makes the metrics of c on t's meter provider and returns their
// registration; Unregister stops them. With t's metrics off it registers
// nothing and returns a no-op registration. The queue is read from the
// database at every collection, with the collection's context: a failed
// read is reported to the SDK and leaves the gauges out of that collection.
func Register(t *telemetry.Telemetry, c *worker.Client) (metric.Registration, error) {
	if t == nil || c == nil {
		return nil, errors.New("workermetrics: Register needs a Telemetry and a worker.Client")
	}
	if !t.Metered() {
		return noRegistration{}, nil
	}
	m := t.MeterProvider().Meter(telemetry.ScopeName + "/workermetrics")
	runs, err := m.Int64ObservableGauge(MetricRuns, metric.WithUnit("{run}"),
		metric.WithDescription("Active runs of the database, by state (pending: waiting for a worker; running)."))
	if err != nil {
		return nil, err
	}
	takeovers, err := m.Int64ObservableCounter(MetricTakeovers, metric.WithUnit("{run}"),
		metric.WithDescription("Runs this process's worker took over from silent workers."))
	if err != nil {
		return nil, err
	}
	return m.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		o.ObserveInt64(takeovers, c.Takeovers())
		st, err := c.QueueStats(ctx)
		if err != nil {
			return err
		}
		o.ObserveInt64(runs, st.Pending, pending)
		o.ObserveInt64(runs, st.Running, running)
		return nil
	}, runs, takeovers)
}

type noRegistration struct{ metric.Registration }

func (noRegistration) Unregister() error { return nil }
