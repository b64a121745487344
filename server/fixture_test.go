package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	storepostgres "github.com/stategraph/stategraph/store/postgres"
	storesqlite "github.com/stategraph/stategraph/store/sqlite"
	"github.com/stretchr/testify/require"
)

// Echo: one node that answers its input, streaming a token and emitting
// a custom event.
type Echo struct {
	Input   string
	Replies []string
}

var (
	echoInput   = state.Value("input", func(e *Echo) *string { return &e.Input })
	echoReplies = state.Append("replies", func(e *Echo) *[]string { return &e.Replies })
)

func echoGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Echo] {
	app, err := graph.New(state.NewSchema(echoInput, echoReplies)).
		AddNode("respond", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			if e.Input == "fail" {
				return state.Update[Echo]{}, errors.New("echo was asked to fail")
			}
			graph.Emit(ctx, map[string]any{"progress": "thinking"})
			stream := graph.StreamingFunc(ctx, "")
			_ = stream(ctx, []byte("echo: "))
			_ = stream(ctx, []byte(e.Input))
			return state.Writes(echoReplies.Set([]string{"echo: " + e.Input})), nil
		}).
		AddEdge(graph.Start, "respond").
		AddEdge("respond", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("echo"))
	require.NoError(t, err)
	return app
}

// Review: write a draft, ask a human to approve it (an interrupt), then
// publish or not.
type Review struct {
	Topic    string
	Draft    string
	Approved bool
	Notes    []string
}

var (
	reviewTopic    = state.Value("topic", func(r *Review) *string { return &r.Topic })
	reviewDraft    = state.Value("draft", func(r *Review) *string { return &r.Draft })
	reviewApproved = state.Value("approved", func(r *Review) *bool { return &r.Approved })
	reviewNotes    = state.Append("notes", func(r *Review) *[]string { return &r.Notes })
)

func reviewGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Review] {
	app, err := graph.New(state.NewSchema(reviewTopic, reviewDraft, reviewApproved, reviewNotes)).
		AddNode("write", func(ctx context.Context, r Review) (state.Update[Review], error) {
			return state.Writes(reviewDraft.Set("a post about " + r.Topic)), nil
		}).
		AddNode("review", func(ctx context.Context, r Review) (state.Update[Review], error) {
			answer, err := graph.Interrupt[string](ctx, map[string]any{"question": "publish?", "draft": r.Draft})
			if err != nil {
				return state.Update[Review]{}, err
			}
			return state.Writes(reviewApproved.Set(answer == "yes"), reviewNotes.Set([]string{"answered " + answer})), nil
		}).
		AddEdge(graph.Start, "write").
		AddEdge("write", "review").
		AddEdge("review", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("review"))
	require.NoError(t, err)
	return app
}

// Gate: a node that waits until the test lets it go (or its run is
// cancelled), for busy threads, cancels and multitask strategies.
type Gate struct {
	Steps []string
}

var gateSteps = state.Append("steps", func(g *Gate) *[]string { return &g.Steps })

// gates hands each run of the gate graph a channel the test releases.
type gates struct{ ch chan chan struct{} }

func newGates() *gates { return &gates{ch: make(chan chan struct{}, 16)} }

func (g *gates) graph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Gate] {
	app, err := graph.New(state.NewSchema(gateSteps)).
		AddNode("first", func(ctx context.Context, s Gate) (state.Update[Gate], error) {
			return state.Writes(gateSteps.Set([]string{"first"})), nil
		}).
		AddNode("wait", func(ctx context.Context, s Gate) (state.Update[Gate], error) {
			release := make(chan struct{})
			select {
			case g.ch <- release:
			case <-ctx.Done():
				return state.Update[Gate]{}, ctx.Err()
			}
			select {
			case <-release:
				return state.Writes(gateSteps.Set([]string{"waited"})), nil
			case <-ctx.Done():
				return state.Update[Gate]{}, ctx.Err()
			}
		}).
		AddEdge(graph.Start, "first").
		AddEdge("first", "wait").
		AddEdge("wait", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("gate"))
	require.NoError(t, err)
	return app
}

// harness is a server over the fixture graphs on one memory saver.
type harness struct {
	t     testing.TB
	srv   *server.Server
	http  *httptest.Server
	gates *gates
	// header, when set, is added to the requests of do.
	header http.Header
}

func newHarness(t testing.TB, opts ...server.Option) *harness {
	return newHarnessOn(t, memory.New(), opts...)
}

// newSQLiteHarness is a harness on the embedded default: checkpoints and
// records in SQLite files.
func newSQLiteHarness(t testing.TB) *harness {
	dir := t.TempDir()
	saver, err := sqlite.Open(filepath.Join(dir, "checkpoints.db"))
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	st, err := server.OpenSQLiteStore(filepath.Join(dir, "server.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	items, err := storesqlite.Open(context.Background(), filepath.Join(dir, "items.db"))
	require.NoError(t, err)
	t.Cleanup(func() { items.Close() })
	return newHarnessOn(t, saver, server.WithRecords(st), server.WithStore(items))
}

// newPostgresHarness is a harness on PostgreSQL: checkpoints and records
// in a fresh schema. It skips without STATEGRAPH_POSTGRES_DSN.
func newPostgresHarness(t testing.TB) *harness {
	pool := pgtest.Pool(t, nil)
	schema := pgtest.Schema(t)
	saver := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, saver.Migrate(context.Background()))
	st, err := server.OpenPostgresStore(context.Background(), pool, schema)
	require.NoError(t, err)
	items, err := storepostgres.New(context.Background(), pool, storepostgres.Config{Schema: schema})
	require.NoError(t, err)
	return newHarnessOn(t, saver, server.WithRecords(st), server.WithStore(items))
}

func newHarnessOn(t testing.TB, saver checkpoint.Saver, opts ...server.Option) *harness {
	gs := newGates()
	srv, err := server.New([]server.Graph{
		server.Register("echo", echoGraph(t, saver)),
		server.Register("review", reviewGraph(t, saver)),
		server.Register("gate", gs.graph(t, saver)),
	}, opts...)
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, http: httptest.NewServer(srv), gates: gs}
	t.Cleanup(func() {
		h.http.Close()
		require.NoError(t, srv.Close())
	})
	return h
}

// do sends a request with a JSON body and returns the status and body.
func (h *harness) do(method, path string, body any) (int, []byte) {
	h.t.Helper()
	var r io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			r = strings.NewReader(s)
		} else {
			data, err := json.Marshal(body)
			require.NoError(h.t, err)
			r = bytes.NewReader(data)
		}
	}
	req, err := http.NewRequest(method, h.http.URL+path, r)
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return resp.StatusCode, data
}

// json sends a request, requires status want and decodes the answer.
func (h *harness) json(method, path string, body any, want int) map[string]any {
	h.t.Helper()
	code, data := h.do(method, path, body)
	require.Equal(h.t, want, code, "%s %s: %s", method, path, data)
	var out map[string]any
	if len(data) > 0 {
		require.NoError(h.t, json.Unmarshal(data, &out), "%s", data)
	}
	return out
}

func (h *harness) list(method, path string, body any) []map[string]any {
	h.t.Helper()
	code, data := h.do(method, path, body)
	require.Equal(h.t, 200, code, "%s %s: %s", method, path, data)
	var out []map[string]any
	require.NoError(h.t, json.Unmarshal(data, &out), "%s", data)
	return out
}

// sse is one parsed server-sent event.
type sse struct {
	ID    string
	Event string
	Data  json.RawMessage
}

// stream posts a run request and reads the whole SSE answer.
func (h *harness) stream(path string, body any, header ...string) (*http.Response, []sse) {
	h.t.Helper()
	data, err := json.Marshal(body)
	require.NoError(h.t, err)
	method := http.MethodPost
	var r io.Reader = bytes.NewReader(data)
	if body == nil {
		method, r = http.MethodGet, nil
	}
	req, err := http.NewRequest(method, h.http.URL+path, r)
	require.NoError(h.t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	require.Equal(h.t, 200, resp.StatusCode, "%s", raw)
	return resp, parseSSE(h.t, string(raw))
}

func parseSSE(t testing.TB, raw string) []sse {
	var out []sse
	for _, block := range strings.Split(raw, "\n\n") {
		var ev sse
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "event":
				ev.Event = v
			case "data":
				ev.Data = json.RawMessage(v)
			case "id":
				ev.ID = v
			}
		}
		if ev.Event != "" {
			out = append(out, ev)
		}
	}
	return out
}

func names(evs []sse) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Event
	}
	return out
}

func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return v
}

// detail is the message of LangGraph's error shape {"detail": …}.
func detail(t testing.TB, body []byte) string {
	t.Helper()
	var e struct {
		Detail string `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(body, &e), "%s", body)
	require.NotEmpty(t, e.Detail, "%s", body)
	return e.Detail
}
