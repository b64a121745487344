package rivertrace_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
	"github.com/stategraph/stategraph/telemetry/rivertrace"
	"github.com/stategraph/stategraph/worker"
)

type essay struct{ Topic, Draft string }

var (
	topicF = state.Value("topic", func(e *essay) *string { return &e.Topic })
	draftF = state.Value("draft", func(e *essay) *string { return &e.Draft })
	essays = state.NewSchema(topicF, draftF)
)

// path is the names of s and its ancestors among spans, root first.
func path(spans tracetest.SpanStubs, s tracetest.SpanStub) string {
	byID := map[string]tracetest.SpanStub{}
	for _, x := range spans {
		byID[x.SpanContext.SpanID().String()] = x
	}
	names := []string{s.Name}
	for s.Parent.IsValid() {
		p, ok := byID[s.Parent.SpanID().String()]
		if !ok {
			break
		}
		names, s = append(names, p.Name), p
	}
	slices.Reverse(names)
	return strings.Join(names, " > ")
}

func TestWorkerRunContinuesTheEnqueuersTrace(t *testing.T) {
	pool := pgtest.Pool(t, nil)
	schema := pgtest.Schema(t)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	saver := postgres.New(pool, postgres.WithSchema(schema))
	app, err := graph.New(essays).
		AddNode("write", func(ctx context.Context, e essay) (state.Update[essay], error) {
			return state.Writes(draftF.Set("draft on " + e.Topic)), nil
		}).
		AddEdge(graph.Start, "write").AddEdge("write", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithObserver(tel), graph.WithName("writer"))
	require.NoError(t, err)
	reg := worker.NewRegistry()
	worker.Register(reg, "writer", app, worker.JSONInput(func(in struct{ Topic string }) (state.Update[essay], error) {
		return state.Writes(topicF.Set(in.Topic)), nil
	}))
	// The worker process and, beside it, an insert-only client as the
	// enqueuing process (an HTTP handler) would have.
	w, err := worker.New(pool, reg, worker.WithSchema(schema), worker.WithSaver(saver), worker.WithWorkers(2), rivertrace.WorkerOption(tel))
	require.NoError(t, err)
	require.NoError(t, w.Migrate(t.Context()))
	enq, err := worker.New(pool, nil, worker.WithSchema(schema), worker.WithSaver(saver), rivertrace.WorkerOption(tel))
	require.NoError(t, err)
	require.NoError(t, w.Start(t.Context()))

	ctx, req := tp.Tracer("test").Start(t.Context(), "POST /threads/t1/runs")
	id, err := enq.Enqueue(ctx, worker.Request{Graph: "writer", Thread: "t1", Input: map[string]string{"Topic": "Go"}})
	req.End()
	require.NoError(t, err)
	run, err := enq.Wait(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, worker.StatusSuccess, run.Status, run.Error)
	require.NoError(t, w.Stop(t.Context())) // the process span has ended

	spans := exp.GetSpans()
	var task tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "task write" {
			task = s
		}
	}
	require.True(t, task.SpanContext.IsValid(), "the worker traced the run")
	assert.Equal(t, "POST /threads/t1/runs > insert stategraph_run > process stategraph_run > run writer > step > task write", path(spans, task))
	assert.Equal(t, req.SpanContext().TraceID(), task.SpanContext.TraceID(), "the worker's run is in the enqueuer's trace")
	for _, s := range spans {
		if s.Name == "process stategraph_run" {
			assert.Contains(t, s.Attributes, rivertrace.KeyJobKind.String("stategraph_run"))
			assert.Contains(t, s.Attributes, rivertrace.KeyJobAttempt.Int(1))
		}
	}
}

func TestMetadataCarriesTheTraceFromInsertToWork(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	mw := rivertrace.New(telemetry.New(telemetry.WithTracerProvider(tp)))
	inserted := func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil }

	plain := []*rivertype.JobInsertParams{{Kind: "k", Queue: "q", Metadata: []byte(`{"a":1}`)}}
	_, err := mw.InsertMany(t.Context(), plain, inserted)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, string(plain[0].Metadata), "no span, nothing to carry")
	assert.Empty(t, exp.GetSpans())

	ctx, parent := tp.Tracer("test").Start(t.Context(), "enqueue")
	params := []*rivertype.JobInsertParams{{Kind: "k", Queue: "q", Metadata: []byte(`{"a":1}`)}, {Kind: "k", Queue: "q"}}
	_, err = mw.InsertMany(ctx, params, inserted)
	require.NoError(t, err)
	parent.End()
	var md map[string]any
	require.NoError(t, json.Unmarshal(params[0].Metadata, &md))
	assert.InDelta(t, 1, md["a"], 0, "the job's own metadata stays")
	assert.Contains(t, md["traceparent"], parent.SpanContext().TraceID().String())
	require.NoError(t, json.Unmarshal(params[1].Metadata, &md))
	assert.Contains(t, md["traceparent"], parent.SpanContext().TraceID().String())

	var worked trace.SpanContext
	err = mw.Work(t.Context(), &rivertype.JobRow{ID: 7, Kind: "k", Queue: "q", Attempt: 2, Metadata: params[1].Metadata}, func(ctx context.Context) error {
		worked = trace.SpanContextFromContext(ctx)
		return nil
	})
	require.NoError(t, err)
	spans := exp.GetSpans()
	var process tracetest.SpanStub
	for _, s := range spans {
		if s.Name == "process k" {
			process = s
		}
	}
	assert.Equal(t, "enqueue > insert k > process k", path(spans, process))
	assert.Equal(t, process.SpanContext.SpanID(), worked.SpanID(), "the job runs in the process span")
	assert.Equal(t, trace.SpanKindConsumer, process.SpanKind)
}
