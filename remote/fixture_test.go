package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/remote"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// Job is the remote graphs' state.
type Job struct {
	Topic  string   `json:"topic"`
	Log    []string `json:"log"`
	Answer string   `json:"answer"`
}

var (
	jobTopic  = state.Value("topic", func(j *Job) *string { return &j.Topic })
	jobLog    = state.Append("log", func(j *Job) *[]string { return &j.Log })
	jobAnswer = state.Value("answer", func(j *Job) *string { return &j.Answer })
)

// remoteServer is the server the caller's node calls: a "writer" graph
// (draft, then polish), a "reviewer" graph (draft, then a question to a
// human), a "quiz" graph (draft, then two questions in turn), a "gated" graph (draft, then a wait the test releases) and a
// "flaky" one (draft, then a check that fails the first time).
type remoteServer struct {
	t      *testing.T
	http   *httptest.Server
	drafts atomic.Int32 // calls of the draft node, over every graph
	gate   chan chan struct{}
	waits  atomic.Int32 // calls of the wait node: a second fails at once
	checks atomic.Int32 // calls of the check node: the first fails

	mu          sync.Mutex
	traceparent []string // the traceparent header of each request
}

func newRemoteServer(t *testing.T) *remoteServer {
	rs := &remoteServer{t: t, gate: make(chan chan struct{}, 1)}
	saver := memory.New()
	draft := func(ctx context.Context, j Job) (state.Update[Job], error) {
		rs.drafts.Add(1)
		graph.Emit(ctx, map[string]any{"n": 1})
		graph.Emit(ctx, map[string]any{"n": 2})
		return state.Writes(jobLog.Set([]string{"drafted " + j.Topic})), nil
	}
	compile := func(name string, g *graph.StateGraph[Job]) *graph.Compiled[Job] {
		app, err := g.Compile(graph.WithCheckpointer(saver), graph.WithName(name))
		require.NoError(t, err)
		return app
	}
	schema := func() *graph.StateGraph[Job] { return graph.New(state.NewSchema(jobTopic, jobLog, jobAnswer)) }
	writer := compile("writer", schema().
		AddNode("draft", draft).
		AddNode("polish", func(ctx context.Context, j Job) (state.Update[Job], error) {
			graph.Emit(ctx, map[string]any{"n": 3})
			_ = graph.StreamingFunc(ctx, "m1")(ctx, []byte("pol"))
			return state.Writes(jobLog.Set([]string{"polished"})), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "polish").AddEdge("polish", graph.End))
	reviewer := compile("reviewer", schema().
		AddNode("draft", draft).
		AddNode("ask", func(ctx context.Context, j Job) (state.Update[Job], error) {
			answer, err := graph.Interrupt[string](ctx, map[string]any{"question": "publish " + j.Topic + "?"})
			if err != nil {
				return state.Update[Job]{}, err
			}
			return state.Writes(jobAnswer.Set(answer), jobLog.Set([]string{"answered " + answer})), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "ask").AddEdge("ask", graph.End))
	ask := func(name string) graph.NodeFunc[Job] {
		return func(ctx context.Context, j Job) (state.Update[Job], error) {
			answer, err := graph.Interrupt[string](ctx, map[string]any{"question": name + " " + j.Topic + "?"})
			if err != nil {
				return state.Update[Job]{}, err
			}
			return state.Writes(jobLog.Set([]string{name + " " + answer})), nil
		}
	}
	quiz := compile("quiz", schema().
		AddNode("draft", draft).AddNode("first", ask("first")).AddNode("second", ask("second")).
		AddEdge(graph.Start, "draft").AddEdge("draft", "first").AddEdge("first", "second").AddEdge("second", graph.End))
	gated := compile("gated", schema().
		AddNode("draft", draft).
		AddNode("wait", func(ctx context.Context, j Job) (state.Update[Job], error) {
			if rs.waits.Add(1) > 1 {
				return state.Update[Job]{}, errors.New("the wait node ran twice")
			}
			release := make(chan struct{})
			select {
			case rs.gate <- release:
			case <-ctx.Done():
				return state.Update[Job]{}, ctx.Err()
			}
			select {
			case <-release:
				return state.Writes(jobLog.Set([]string{"waited"})), nil
			case <-ctx.Done():
				return state.Update[Job]{}, ctx.Err()
			}
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "wait").AddEdge("wait", graph.End))
	flaky := compile("flaky", schema().
		AddNode("draft", draft).
		AddNode("check", func(ctx context.Context, j Job) (state.Update[Job], error) {
			if rs.checks.Add(1) == 1 {
				return state.Update[Job]{}, errors.New("the check failed once")
			}
			return state.Writes(jobLog.Set([]string{"checked"})), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "check").AddEdge("check", graph.End))
	srv, err := server.New([]server.Graph{
		server.Register("flaky", flaky),
		server.Register("writer", writer),
		server.Register("reviewer", reviewer),
		server.Register("gated", gated),
		server.Register("quiz", quiz),
	})
	require.NoError(t, err)
	rs.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.traceparent = append(rs.traceparent, r.Header.Get("traceparent"))
		rs.mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		rs.http.Close()
		require.NoError(t, srv.Close())
	})
	return rs
}

// graph returns the remote assistant id through a client of its own.
func (rs *remoteServer) graph(assistant string, opts ...remote.Option) *remote.Graph {
	tr := &http.Transport{}
	rs.t.Cleanup(tr.CloseIdleConnections)
	return remote.New(rs.http.URL, assistant, append([]remote.Option{remote.WithHTTPClient(&http.Client{Transport: tr})}, opts...)...)
}

// runs lists the remote thread's runs.
func (rs *remoteServer) runs(thread string) []map[string]any {
	resp, err := http.Get(rs.http.URL + "/threads/" + thread + "/runs?limit=100")
	require.NoError(rs.t, err)
	defer resp.Body.Close()
	require.Equal(rs.t, http.StatusOK, resp.StatusCode)
	var out []map[string]any
	require.NoError(rs.t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

// Trip is the caller's state.
type Trip struct {
	Topic        string `json:"topic"`
	Summary      string `json:"summary"`
	RemoteThread string `json:"remote_thread"`
	Done         bool   `json:"done"`
}

var (
	tripTopic   = state.Value("topic", func(t *Trip) *string { return &t.Topic })
	tripSummary = state.Value("summary", func(t *Trip) *string { return &t.Summary })
	tripRemote  = state.Value("remote_thread", func(t *Trip) *string { return &t.RemoteThread })
	tripDone    = state.Value("done", func(t *Trip) *bool { return &t.Done })
)

// callerGraph is the caller: "delegate" runs the remote assistant with
// the topic, and keeps its log and its thread; "finish" runs after it.
func callerGraph(t *testing.T, rg *remote.Graph, saver checkpoint.Saver) *graph.Compiled[Trip] {
	app, err := graph.New(state.NewSchema(tripTopic, tripSummary, tripRemote, tripDone)).
		AddNode("delegate", remote.Node(rg,
			func(s Trip) (any, error) { return map[string]any{"topic": s.Topic}, nil },
			func(s Trip, r remote.Result) (state.Update[Trip], error) {
				var out Job
				if err := json.Unmarshal(r.Values, &out); err != nil {
					return state.Update[Trip]{}, err
				}
				return state.Writes(tripSummary.Set(strings.Join(out.Log, "; ")), tripRemote.Set(r.ThreadID)), nil
			})).
		AddNode("finish", func(ctx context.Context, s Trip) (state.Update[Trip], error) {
			return state.Writes(tripDone.Set(true)), nil
		}).
		AddEdge(graph.Start, "delegate").AddEdge("delegate", "finish").AddEdge("finish", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("trip"))
	require.NoError(t, err)
	return app
}

// openSaver opens the caller's SQLite checkpoints at path.
func openSaver(t *testing.T, path string) *sqlite.Saver {
	saver, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	return saver
}

func dbPath(t *testing.T) string { return filepath.Join(t.TempDir(), "caller.db") }

// serveCaller serves the caller graph over rg as assistant "trip" on a
// stategraph server of its own (a SQLite saver), and gives a client of
// its own whose connections close with the test.
func serveCaller(t *testing.T, rg *remote.Graph) (*httptest.Server, *http.Client) {
	t.Helper()
	caller, err := server.New([]server.Graph{server.Register("trip", callerGraph(t, rg, openSaver(t, dbPath(t))))})
	require.NoError(t, err)
	hs := httptest.NewServer(caller)
	t.Cleanup(func() {
		hs.Close()
		require.NoError(t, caller.Close())
	})
	cl := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(cl.CloseIdleConnections)
	return hs, cl
}
