package studio_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	_ "modernc.org/sqlite"

	"github.com/stategraph/stategraph/studio"
)

// The recorder keeps the spans of the newest runs, by thread, and a nil
// one says it records nothing.
func TestTracesKeepTheNewestRunsOfEachThread(t *testing.T) {
	t.Parallel()
	rec := studio.NewTraces(2)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	tr := tp.Tracer("test")
	for i, thread := range []string{"a", "a", "b"} {
		ctx, run := tr.Start(context.Background(), "run g")
		_, task := tr.Start(ctx, "task n")
		task.End()
		run.SetAttributes(attribute.String("stategraph.thread.id", thread), attribute.String("stategraph.run.id", []string{"r1", "r2", "r3"}[i]))
		run.End()
	}
	get := func(h interface {
		ServeHTTP(w http.ResponseWriter, r *http.Request)
	}, thread string) (out struct {
		Recording bool `json:"recording"`
		Runs      []struct {
			Run   string `json:"run_id"`
			Spans []struct {
				Name string `json:"name"`
			} `json:"spans"`
		} `json:"runs"`
	}) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/traces?thread="+thread, nil))
		require.Equal(t, 200, w.Code, w.Body.String())
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
		return out
	}
	a := get(rec, "a")
	assert.True(t, a.Recording)
	require.Len(t, a.Runs, 1, "the oldest run (r1) was dropped")
	assert.Equal(t, "r2", a.Runs[0].Run)
	require.Len(t, a.Runs[0].Spans, 2)
	assert.Equal(t, "run g", a.Runs[0].Spans[0].Name, "spans by start")
	assert.Equal(t, "r3", get(rec, "b").Runs[0].Run)
	var none *studio.Traces
	assert.False(t, get(none, "a").Recording)
}

// Runs kept in a database outlive the recorder: a new one loads them.
func TestTracesKeptInADatabaseOutliveTheProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "traces.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
		require.NoError(t, err)
		return db
	}
	db := open()
	rec := studio.NewTraces(10)
	require.NoError(t, rec.Persist(context.Background(), db))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, run := tp.Tracer("test").Start(context.Background(), "run g")
	_, task := tp.Tracer("test").Start(ctx, "task n")
	task.End()
	run.SetAttributes(attribute.String("stategraph.thread.id", "a"), attribute.String("stategraph.run.id", "r1"))
	run.End()
	require.NoError(t, tp.Shutdown(context.Background()))
	require.NoError(t, db.Close())

	db = open()
	defer db.Close()
	again := studio.NewTraces(10)
	require.NoError(t, again.Persist(context.Background(), db))
	w := httptest.NewRecorder()
	again.ServeHTTP(w, httptest.NewRequest("GET", "/traces?thread=a", nil))
	require.Equal(t, 200, w.Code)
	var out struct {
		Runs []struct {
			Run   string `json:"run_id"`
			Spans []struct {
				Name string `json:"name"`
			} `json:"spans"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
	require.Len(t, out.Runs, 1)
	assert.Equal(t, "r1", out.Runs[0].Run)
	assert.Len(t, out.Runs[0].Spans, 2)
}
