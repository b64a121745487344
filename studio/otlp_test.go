package studio_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/studio"
	"github.com/stategraph/stategraph/telemetry"
)

// countingGraph is a graph of two counting steps, traced by tp.
func countingGraph(t *testing.T, tp *sdktrace.TracerProvider) *graph.Compiled[counter] {
	t.Helper()
	n := state.Value("n", func(c *counter) *int { return &c.N })
	app, err := graph.New(state.NewSchema(n)).
		AddNode("count", func(ctx context.Context, c counter) (state.Update[counter], error) {
			return state.Writes(n.Set(c.N + 1)), nil
		}).
		AddEdge(graph.Start, "count").
		AddConditionalEdges("count", graph.Choose(func(ctx context.Context, c counter) (string, error) {
			if c.N < 2 {
				return "count", nil
			}
			return graph.End, nil
		}), "count", graph.End).
		Compile(graph.WithCheckpointer(memory.New()), graph.WithName("counter"),
			graph.WithObserver(telemetry.New(telemetry.WithTracerProvider(tp)).Observer()))
	require.NoError(t, err)
	return app
}

type tracesReply struct {
	Recording bool   `json:"recording"`
	Kept      string `json:"kept"`
	Runs      []struct {
		Run   string `json:"run_id"`
		Graph string `json:"graph"`
		Spans []struct {
			Name   string         `json:"name"`
			Parent string         `json:"parent_id"`
			Attrs  map[string]any `json:"attributes"`
		} `json:"spans"`
	} `json:"runs"`
}

func tracesOf(t *testing.T, web, thread string) tracesReply {
	t.Helper()
	resp, err := http.Get(web + "/studio/traces?thread=" + thread)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	var out tracesReply
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// Another program whose OpenTelemetry exporter (the SDK's own
// otlptracehttp) sends to the studio shows its runs in the trace view,
// plain or gzipped.
func TestAnotherProgramsRunsArriveOverOTLP(t *testing.T) {
	t.Parallel()
	rec := studio.NewTraces(10)
	srv, err := server.New(nil)
	require.NoError(t, err)
	web := httptest.NewServer(studio.Beside(srv, studio.WithTraces(rec)))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})
	for _, tc := range []struct {
		name string
		opts []otlptracehttp.Option
	}{
		{"plain", nil},
		{"gzip", []otlptracehttp.Option{otlptracehttp.WithCompression(otlptracehttp.GzipCompression)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			exp, err := otlptracehttp.New(ctx, append([]otlptracehttp.Option{otlptracehttp.WithEndpointURL(web.URL + studio.OTLPPath)}, tc.opts...)...)
			require.NoError(t, err)
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
			app := countingGraph(t, tp)
			_, err = app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("other-"+tc.name))
			require.NoError(t, err)
			require.NoError(t, tp.Shutdown(ctx), "the exporter sent its batch")

			got := tracesOf(t, web.URL, "other-"+tc.name)
			assert.True(t, got.Recording)
			assert.Equal(t, "memory", got.Kept, "no Persist: the runs are kept in memory only")
			require.Len(t, got.Runs, 1)
			run := got.Runs[0]
			assert.Equal(t, "counter", run.Graph)
			assert.NotEmpty(t, run.Run)
			var names []string
			for _, s := range run.Spans {
				names = append(names, s.Name)
			}
			assert.Equal(t, "run counter", names[0], "spans by start: %v", names)
			assert.Contains(t, names, "task count")
			assert.Contains(t, names, "step")
			assert.Empty(t, run.Spans[0].Parent, "the run's own span is the root")
			assert.Equal(t, "other-"+tc.name, run.Spans[0].Attrs["stategraph.thread.id"])
		})
	}
}

// What the receiver does not read is refused by name, not dropped.
func TestTheOTLPReceiverRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	h := studio.NewTraces(1).OTLP()
	for _, tc := range []struct {
		name, method, ctype, encoding, body string
		code                                int
		want                                string
	}{
		{"JSON", "POST", "application/json", "", "{}", http.StatusUnsupportedMediaType, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"},
		{"not protobuf", "POST", "application/x-protobuf", "", "\xff\xff\xff", http.StatusBadRequest, "not an ExportTraceServiceRequest"},
		{"not gzip", "POST", "application/x-protobuf", "gzip", "plain", http.StatusBadRequest, "not gzip"},
		{"brotli", "POST", "application/x-protobuf", "br", "", http.StatusUnsupportedMediaType, `"br"`},
		{"GET", "GET", "", "", "", http.StatusMethodNotAllowed, "POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, studio.OTLPPath, strings.NewReader(tc.body))
			r.Header.Set("Content-Type", tc.ctype)
			if tc.encoding != "" {
				r.Header.Set("Content-Encoding", tc.encoding)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, tc.code, w.Code)
			assert.Contains(t, w.Body.String(), tc.want)
		})
	}
}

// Deleting a thread through the API deletes its traces too, from memory
// and from the database they are kept in.
func TestDeletingAThreadDeletesItsTraces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "traces.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	rec := studio.NewTraces(10)
	require.NoError(t, rec.Persist(ctx, db))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(ctx) })
	srv, err := server.New([]server.Graph{server.Register("counter", countingGraph(t, tp))})
	require.NoError(t, err)
	web := httptest.NewServer(studio.Beside(srv, studio.WithTraces(rec)))
	t.Cleanup(func() {
		web.Close()
		srv.Close()
	})
	for _, tid := range []string{"gone", "kept"} {
		apiJSON[map[string]any](t, "POST", web.URL+"/threads", `{"thread_id": "`+tid+`", "graph_id": "counter"}`)
		apiJSON[map[string]any](t, "POST", web.URL+"/threads/"+tid+"/runs/wait", `{"assistant_id": "counter", "input": {"n": 0}}`)
		require.Len(t, tracesOf(t, web.URL, tid).Runs, 1, "thread %s was traced", tid)
	}
	assert.Equal(t, "database", tracesOf(t, web.URL, "gone").Kept)

	req, err := http.NewRequest("DELETE", web.URL+"/threads/gone", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Less(t, resp.StatusCode, 300, "the thread was deleted")

	assert.Empty(t, tracesOf(t, web.URL, "gone").Runs)
	assert.Len(t, tracesOf(t, web.URL, "kept").Runs, 1, "another thread's traces stay")
	var rows int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM studio_traces WHERE thread_id = 'gone'`).Scan(&rows))
	assert.Zero(t, rows, "the kept copy is deleted too")

	// A deletion the API refuses leaves the traces alone.
	req, err = http.NewRequest("DELETE", web.URL+"/threads/nosuch", nil)
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Len(t, tracesOf(t, web.URL, "kept").Runs, 1)
}
