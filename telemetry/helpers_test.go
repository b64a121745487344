package telemetry_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/stategraph/stategraph/telemetry"
)

// traced is a Telemetry whose spans go, as each ends, to an in-memory
// exporter, and whose metrics a manual reader collects.
type traced struct {
	*telemetry.Telemetry
	tp     *sdktrace.TracerProvider
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newTraced(t *testing.T) *traced {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return &traced{Telemetry: telemetry.New(telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp)), tp: tp, spans: exp, reader: reader}
}

// tree is the spans exported so far, with their parents.
type tree struct {
	spans []tracetest.SpanStub
	byID  map[string]*tracetest.SpanStub
}

func (tr *traced) tree() *tree {
	t := &tree{spans: tr.spans.GetSpans(), byID: map[string]*tracetest.SpanStub{}}
	for i := range t.spans {
		t.byID[t.spans[i].SpanContext.SpanID().String()] = &t.spans[i]
	}
	return t
}

// parent returns s's parent among the exported spans, or nil.
func (t *tree) parent(s *tracetest.SpanStub) *tracetest.SpanStub {
	if !s.Parent.IsValid() {
		return nil
	}
	return t.byID[s.Parent.SpanID().String()]
}

// path is s's name after its ancestors', "run g > step > task a".
func (t *tree) path(s *tracetest.SpanStub) string {
	names := []string{s.Name}
	for p := t.parent(s); p != nil; p = t.parent(p) {
		names = append(names, p.Name)
	}
	slices.Reverse(names)
	return strings.Join(names, " > ")
}

// paths lists every span's path, sorted, each once.
func (t *tree) paths() []string {
	var out []string
	for i := range t.spans {
		out = append(out, t.path(&t.spans[i]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// named returns the spans called name, in the order they ended.
func (t *tree) named(name string) []*tracetest.SpanStub {
	var out []*tracetest.SpanStub
	for i := range t.spans {
		if t.spans[i].Name == name {
			out = append(out, &t.spans[i])
		}
	}
	return out
}

// one returns the only span called name.
func (t *tree) one(tb testing.TB, name string) *tracetest.SpanStub {
	tb.Helper()
	s := t.named(name)
	require.Len(tb, s, 1, "spans named %q", name)
	return s[0]
}

// attr returns the value of s's attribute k, and whether it has it.
func attr(s *tracetest.SpanStub, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attrOf(attrs []attribute.KeyValue, k attribute.Key) attribute.Value {
	for _, kv := range attrs {
		if kv.Key == k {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// events returns the names of s's events.
func events(s *tracetest.SpanStub) []string {
	var out []string
	for _, e := range s.Events {
		out = append(out, e.Name)
	}
	return out
}

// collect reads the metrics recorded so far, by name.
func (tr *traced) collect(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tr.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// sum adds up a counter's points whose attributes include want.
func sum(m metricdata.Metrics, want ...attribute.KeyValue) int64 {
	var n int64
	if s, ok := m.Data.(metricdata.Sum[int64]); ok {
		for _, p := range s.DataPoints {
			if hasAll(p.Attributes, want) {
				n += p.Value
			}
		}
	}
	return n
}

// count adds up how many values a histogram recorded whose attributes
// include want; total is their sum.
func count[N int64 | float64](m metricdata.Metrics, want ...attribute.KeyValue) (n uint64, total N) {
	if h, ok := m.Data.(metricdata.Histogram[N]); ok {
		for _, p := range h.DataPoints {
			if hasAll(p.Attributes, want) {
				n += p.Count
				total += p.Sum
			}
		}
	}
	return n, total
}

func hasAll(set attribute.Set, want []attribute.KeyValue) bool {
	for _, kv := range want {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

func attributeKey(k string) attribute.Key { return attribute.Key(k) }

func attrKV(k, v string) attribute.KeyValue { return attribute.String(k, v) }
