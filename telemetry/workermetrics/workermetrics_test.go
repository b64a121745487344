package workermetrics_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/workermetrics"
	"github.com/stategraph/stategraph/worker"
)

type doc struct{ Topic string }

var (
	topicF = state.Value("topic", func(d *doc) *string { return &d.Topic })
	docs   = state.NewSchema(topicF)
)

// gauge returns the value of the runs gauge with the given state.
func gauge(t *testing.T, rm metricdata.ResourceMetrics, state string) (int64, bool) {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != workermetrics.MetricRuns {
				continue
			}
			for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
				if v, ok := dp.Attributes.Value(workermetrics.KeyRunState); ok && v.AsString() == state {
					return dp.Value, true
				}
			}
		}
	}
	return 0, false
}

func counter(rm metricdata.ResourceMetrics, name string) (int64, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data.(metricdata.Sum[int64]).DataPoints[0].Value, true
			}
		}
	}
	return 0, false
}

func TestQueueDepthAndTakeoversAreReported(t *testing.T) {
	pool := pgtest.Pool(t, nil)
	schema := pgtest.Schema(t)
	saver := postgres.New(pool, postgres.WithSchema(schema))
	app, err := graph.New(docs).AddNode("n", func(ctx context.Context, d doc) (state.Update[doc], error) {
		return state.Update[doc]{}, nil
	}).AddEdge(graph.Start, "n").Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	reg := worker.NewRegistry()
	worker.Register(reg, "g", app, worker.JSONInput(func(in struct{ Topic string }) (state.Update[doc], error) {
		return state.Writes(topicF.Set(in.Topic)), nil
	}))
	enq, err := worker.New(pool, nil, worker.WithSchema(schema), worker.WithSaver(saver))
	require.NoError(t, err)
	require.NoError(t, enq.Migrate(t.Context()))
	for _, th := range []string{"a", "b"} {
		_, err := enq.Enqueue(t.Context(), worker.Request{Graph: "g", Thread: th, Input: map[string]string{"Topic": th}})
		require.NoError(t, err)
	}

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	r, err := workermetrics.Register(telemetry.New(telemetry.WithMeterProvider(mp)), enq)
	require.NoError(t, err)

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	n, ok := gauge(t, rm, "pending")
	require.True(t, ok)
	require.Equal(t, int64(2), n)
	n, ok = gauge(t, rm, "running")
	require.True(t, ok)
	require.Zero(t, n)
	n, ok = counter(rm, workermetrics.MetricTakeovers)
	require.True(t, ok)
	require.Zero(t, n)

	require.NoError(t, r.Unregister())
	rm = metricdata.ResourceMetrics{}
	require.NoError(t, reader.Collect(t.Context(), &rm))
	_, ok = gauge(t, rm, "pending")
	require.False(t, ok, "nothing is read after Unregister")
}

func TestRegisterWithMetricsOffDoesNothing(t *testing.T) {
	t.Parallel()
	reg, err := workermetrics.Register(telemetry.New(), &worker.Client{})
	require.NoError(t, err)
	require.NoError(t, reg.Unregister())
	_, err = workermetrics.Register(nil, nil)
	require.Error(t, err)
}
