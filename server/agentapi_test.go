package server_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// TestLangGraphJSAgentAPI drives the parts of the Agent Server API that
// issue #32 added with LangGraph's own JS client (testdata/sdk/agentapi.mjs):
// command.goto, task inputs, subgraph states, … against the embedded
// SQLite default, PostgreSQL in one process, and two replicas on one
// PostgreSQL database (an API-only one the client talks to, and one whose
// workers execute the runs).
func TestLangGraphJSAgentAPI(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		js := langGraphJS(t)
		dir := t.TempDir()
		saver, err := sqlite.Open(filepath.Join(dir, "checkpoints.db"))
		require.NoError(t, err)
		t.Cleanup(func() { saver.Close() })
		st, err := server.OpenSQLiteStore(filepath.Join(dir, "server.db"))
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		js.run(t, "the LangGraph JS client", "agentapi.mjs", nil, serveAgentGraphs(t, saver, server.WithRecords(st)))
	})
	t.Run("postgres", func(t *testing.T) {
		js := langGraphJS(t)
		pool := pgtest.Pool(t, nil)
		schema := pgtest.Schema(t)
		saver := postgres.New(pool, postgres.WithSchema(schema))
		require.NoError(t, saver.Migrate(context.Background()))
		st, err := server.OpenPostgresStore(context.Background(), pool, schema)
		require.NoError(t, err)
		js.run(t, "the LangGraph JS client", "agentapi.mjs", nil, serveAgentGraphs(t, saver, server.WithRecords(st)))
	})
	t.Run("replicas", func(t *testing.T) {
		js := langGraphJS(t)
		schema := pgtest.Schema(t)
		var urls []string
		for _, n := range []int{0, 2} {
			pool := pgtest.Pool(t, nil)
			saver := postgres.New(pool, postgres.WithSchema(schema))
			require.NoError(t, saver.Migrate(context.Background()))
			st, err := server.OpenPostgresStore(context.Background(), pool, schema)
			require.NoError(t, err)
			urls = append(urls, serveAgentGraphs(t, saver, server.WithRecords(st), server.WithWorkers(n, worker.WithRiverConfig(func(c *river.Config) {
				c.Logger = slog.New(slog.DiscardHandler)
			}))))
		}
		js.run(t, "the LangGraph JS client", "agentapi.mjs", nil, urls[0])
	})
}

// serveAgentGraphs serves the graphs of agentapi.mjs and returns the URL.
// POST /__test/tick?at=RFC3339 makes the server check its crons and
// thread TTLs at that time, and answers once it has.
func serveAgentGraphs(t *testing.T, saver checkpoint.Saver, opts ...server.Option) string {
	ticks := make(chan time.Time)
	opts = append(opts, server.WithCronTicks(ticks))
	srv, err := server.New([]server.Graph{
		server.Register("route", routeGraph(t, saver)),
		server.Register("nest", nestGraph(t, saver)),
		server.Register("conf", confGraph(t, saver)),
		server.Register("tools", toolsGraph(t, saver)),
	}, opts...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /__test/tick", func(w http.ResponseWriter, r *http.Request) {
		at, err := time.Parse(time.RFC3339Nano, r.URL.Query().Get("at"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		tick(ticks, at)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("/", srv)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		hs.Close()
		require.NoError(t, srv.Close())
	})
	return hs.URL
}

// Route: a → b → end, and c, which only a command's goto (or a's
// declared destination) reaches. Each node adds its name to the trail.
type Route struct {
	Note  string
	Trail []string
}

var (
	routeNote  = state.Value("note", func(r *Route) *string { return &r.Note })
	routeTrail = state.Append("trail", func(r *Route) *[]string { return &r.Trail })
)

func routeGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Route] {
	visit := func(name string) graph.NodeFunc[Route] {
		return func(ctx context.Context, r Route) (state.Update[Route], error) {
			mark := name
			if r.Note != "" {
				mark += ":" + r.Note
			}
			return state.Writes(routeTrail.Set([]string{mark})), nil
		}
	}
	app, err := graph.New(state.NewSchema(routeNote, routeTrail)).
		AddNode("a", visit("a"), graph.WithDestinations("c")).
		AddNode("b", visit("b")).
		AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").
		AddEdge("b", graph.End).AddEdge("c", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("route"))
	require.NoError(t, err)
	return app
}

// Nest: an outer graph whose one node is a subgraph, inner (prepare,
// then respond, with a breakpoint before respond).
func nestGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Echo] {
	schema := state.NewSchema(echoInput, echoReplies)
	inner, err := graph.New(schema).
		AddNode("prepare", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			return state.Writes(echoInput.Set(strings.ToUpper(e.Input))), nil
		}).
		AddNode("respond", func(ctx context.Context, e Echo) (state.Update[Echo], error) {
			return state.Writes(echoReplies.Set([]string{"echo: " + e.Input})), nil
		}).
		AddEdge(graph.Start, "prepare").AddEdge("prepare", "respond").
		Compile(graph.WithInterruptBefore("respond"), graph.WithName("inner"))
	require.NoError(t, err)
	outer, err := graph.New(schema).
		AddSubgraph("inner", inner).
		AddEdge(graph.Start, "inner").
		Compile(graph.WithCheckpointer(saver), graph.WithName("nest"))
	require.NoError(t, err)
	return outer
}

// Conf: one node that writes what the run's Config gave it: the
// configurable "model", the context's "user" and the tags.
func confGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Route] {
	app, err := graph.New(state.NewSchema(routeNote, routeTrail)).
		AddNode("read", func(ctx context.Context, r Route) (state.Update[Route], error) {
			cfg, ok := server.ConfigOf(ctx)
			if !ok {
				return state.Update[Route]{}, errors.New("no run config")
			}
			note := fmt.Sprintf("model=%v user=%v tags=%s", cfg.Configurable["model"], cfg.Context["user"], strings.Join(cfg.Tags, ","))
			return state.Writes(routeNote.Set(note), routeTrail.Set([]string{cfg.AssistantID})), nil
		}).
		AddEdge(graph.Start, "read").AddEdge("read", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("conf"))
	require.NoError(t, err)
	return app
}

// Tools: agent streams a message token by token, then act makes two tool
// calls reported with server.StreamToolCall, the second failing.
func toolsGraph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Route] {
	app, err := graph.New(state.NewSchema(routeNote, routeTrail)).
		AddNode("agent", func(ctx context.Context, r Route) (state.Update[Route], error) {
			stream := graph.StreamingFunc(ctx, "m-1")
			_ = stream(ctx, []byte("look"))
			_ = stream(ctx, []byte("ing"))
			return state.Writes(routeTrail.Set([]string{"agent"})), nil
		}).
		AddNode("act", func(ctx context.Context, r Route) (state.Update[Route], error) {
			out, err := server.StreamToolCall(ctx, "search", "call-1", `{"q":"go"}`, func(context.Context) (string, error) { return "found", nil })
			if err != nil {
				return state.Update[Route]{}, err
			}
			_, err = server.StreamToolCall(ctx, "fetch", "call-2", map[string]any{"url": "x"}, func(context.Context) (string, error) {
				return "", errors.New("offline")
			})
			return state.Writes(routeNote.Set(out+" "+err.Error()), routeTrail.Set([]string{"act"})), nil
		}).
		AddEdge(graph.Start, "agent").AddEdge("agent", "act").AddEdge("act", graph.End).
		Compile(graph.WithCheckpointer(saver), graph.WithName("tools"))
	require.NoError(t, err)
	return app
}
