package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
	storepostgres "github.com/stategraph/stategraph/store/postgres"
	"github.com/stategraph/stategraph/worker"
)

// TestServerReplicaProcess is a server replica of the multi-process tests;
// it does nothing in a normal test run. It serves the fixture graphs with
// workers on the schema it is given, on a loopback port it prints
// ("listening URL"), until its stdin closes. Its gate graph waits until
// the thread's gate is opened, in this process, by POST
// /__test/open/{thread}; POST /__test/tick?at=RFC3339 makes it check its
// crons at that time, and answers once it has.
func TestServerReplicaProcess(t *testing.T) {
	schema := os.Getenv("STATEGRAPH_SERVER_REPLICA_SCHEMA")
	if schema == "" {
		t.Skip("server replica of the multi-process tests")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	defer pool.Close()
	saver := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, saver.Migrate(ctx))
	st, err := server.OpenPostgresStore(ctx, pool, schema)
	require.NoError(t, err)
	items, err := storepostgres.New(ctx, pool, storepostgres.Config{Schema: schema})
	require.NoError(t, err)
	gates := &threadGates{open: map[string]chan struct{}{}}
	ticks := make(chan time.Time)
	srv, err := server.New([]server.Graph{
		server.Register("echo", echoGraph(t, saver)),
		server.Register("review", reviewGraph(t, saver)),
		server.Register("gate", gates.graph(t, saver)),
	}, server.WithRecords(st), server.WithStore(items), server.WithCronTicks(ticks), server.WithWebhooks(server.Webhooks{AllowLoopback: true}), server.WithWorkers(4, worker.WithRiverConfig(func(c *river.Config) {
		c.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /__test/open/{thread}", func(w http.ResponseWriter, r *http.Request) {
		gates.openThread(r.PathValue("thread"))
		w.WriteHeader(http.StatusNoContent)
	})
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // until Shutdown
	fmt.Printf("listening http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the parent closes it
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	require.NoError(t, srv.Close())
}

// threadGates are the gates of a replica process: one per thread, open or
// shut; the gate graph's wait node passes once its thread's is open.
type threadGates struct {
	mu   sync.Mutex
	open map[string]chan struct{}
}

func (g *threadGates) gate(thread string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch := g.open[thread]
	if ch == nil {
		ch = make(chan struct{})
		g.open[thread] = ch
	}
	return ch
}

func (g *threadGates) openThread(thread string) {
	ch := g.gate(thread)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// graph is the fixture's gate graph with process gates.
func (g *threadGates) graph(t testing.TB, saver checkpoint.Saver) *graph.Compiled[Gate] {
	app, err := graph.New(state.NewSchema(gateSteps)).
		AddNode("first", func(ctx context.Context, s Gate) (state.Update[Gate], error) {
			return state.Writes(gateSteps.Set([]string{"first"})), nil
		}).
		AddNode("wait", func(ctx context.Context, s Gate) (state.Update[Gate], error) {
			info, _ := graph.RunInfo(ctx)
			select {
			case <-g.gate(info.ThreadID):
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

// startReplica starts a replica process on schema and returns its URL.
func startReplica(t testing.TB, schema string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerReplicaProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "STATEGRAPH_SERVER_REPLICA_SCHEMA="+schema)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill() //nolint:errcheck // it would not stop
			<-done
		}
	})
	for line := range lines {
		if url, ok := strings.CutPrefix(line, "listening "); ok {
			go func() {
				for range lines { // drain: the test binary's own output
				}
			}()
			return url
		}
	}
	t.Fatal("a replica process ended before it listened")
	return ""
}

// hookWaiter serves GET /wait?run_id=…, which answers a run's webhook
// body once it has arrived, to the JS client.
func (h *hookSink) waiter() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rid := r.URL.Query().Get("run_id")
		deadline := time.Now().Add(10 * time.Second)
		timer := time.AfterFunc(10*time.Second, func() { h.mu.Lock(); h.cond.Broadcast(); h.mu.Unlock() })
		defer timer.Stop()
		h.mu.Lock()
		for h.got[rid] == nil && time.Now().Before(deadline) {
			h.cond.Wait()
		}
		body := h.got[rid]
		h.mu.Unlock()
		if body == nil {
			http.Error(w, "no webhook for run "+rid, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
}
