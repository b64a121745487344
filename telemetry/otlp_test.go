package telemetry_test

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

// collector is an OTLP/HTTP trace receiver: it decodes each export
// request's protobuf and keeps the spans.
type collector struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	paths    []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path)
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func TestSpansExportOverOTLPHTTP(t *testing.T) {
	t.Parallel()
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	exp, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	require.NoError(t, err)
	res := resource.NewSchemaless(semconv.ServiceName("essay-writer"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	tel := telemetry.New(telemetry.WithTracerProvider(tp))

	c := compile(t, graph.New(docs).AddNode("write", visit("write")).AddEdge(graph.Start, "write").AddEdge("write", graph.End),
		graph.WithCheckpointer(memory.New()), graph.WithObserver(tel), graph.WithName("essay"))
	_, err = c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t-otlp"))
	require.NoError(t, err)
	require.NoError(t, tp.Shutdown(context.Background())) // flushes the batch

	col.mu.Lock()
	defer col.mu.Unlock()
	assert.Contains(t, col.paths, "/v1/traces")
	assert.Contains(t, col.services, "essay-writer")
	byName := map[string]*tracepb.Span{}
	for _, s := range col.spans {
		byName[s.Name] = s
	}
	for _, name := range []string{"run essay", "step", "task write", "checkpoint input", "checkpoint loop"} {
		assert.Contains(t, byName, name)
	}
	run, task, step := byName["run essay"], byName["task write"], byName["step"]
	require.NotNil(t, run)
	require.NotNil(t, task)
	require.NotNil(t, step)
	assert.Empty(t, run.ParentSpanId)
	assert.Equal(t, hex.EncodeToString(step.SpanId), hex.EncodeToString(task.ParentSpanId))
	assert.Equal(t, hex.EncodeToString(run.SpanId), hex.EncodeToString(step.ParentSpanId))
	assert.Equal(t, run.TraceId, task.TraceId)
	attrs := map[string]string{}
	for _, kv := range run.Attributes {
		attrs[kv.Key] = kv.GetValue().GetStringValue()
	}
	assert.Equal(t, "t-otlp", attrs[string(telemetry.KeyThread)])
	assert.Equal(t, "essay", attrs[string(telemetry.KeyGraph)])
	assert.Equal(t, telemetry.OutcomeSuccess, attrs[string(telemetry.KeyOutcome)])
}
