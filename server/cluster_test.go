package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/worker"
)

// newReplicas returns servers over one PostgreSQL schema, each on a pool
// of its own, as replicas in several processes would be, with workers[i]
// workers each (0: API only). Their gate graphs share one set of gates,
// so a test releases a gate whichever replica executes the run. It skips
// without STATEGRAPH_POSTGRES_DSN.
func newReplicas(t testing.TB, workers ...int) []*harness {
	return newReplicasWith(t, workers, nil)
}

// newReplicasWith is newReplicas with replica i given opts(i) too.
func newReplicasWith(t testing.TB, workers []int, opts func(i int) []server.Option) []*harness {
	schema := pgtest.Schema(t)
	gs := newGates()
	var out []*harness
	for i, n := range workers {
		pool := pgtest.Pool(t, nil)
		saver := postgres.New(pool, postgres.WithSchema(schema))
		require.NoError(t, saver.Migrate(context.Background()))
		st, err := server.OpenPostgresStore(context.Background(), pool, schema)
		require.NoError(t, err)
		o := []server.Option{server.WithRecords(st), server.WithWebhooks(server.Webhooks{AllowLoopback: true}), server.WithWorkers(n, worker.WithRiverConfig(func(c *river.Config) {
			c.Logger = slog.New(slog.DiscardHandler)
		}))}
		if opts != nil {
			o = append(o, opts(i)...)
		}
		srv, err := server.New([]server.Graph{
			server.Register("echo", echoGraph(t, saver)),
			server.Register("review", reviewGraph(t, saver)),
			server.Register("gate", gs.graph(t, saver)),
		}, o...)
		require.NoError(t, err)
		h := &harness{t: t, srv: srv, http: httptest.NewServer(srv), gates: gs}
		t.Cleanup(func() {
			h.http.Close()
			require.NoError(t, srv.Close())
		})
		out = append(out, h)
	}
	return out
}

// hookSink receives webhooks.
type hookSink struct {
	url  string
	mu   sync.Mutex
	got  map[string]map[string]any // by run id
	cond *sync.Cond
}

func newHookSink(t testing.TB) *hookSink {
	h := &hookSink{got: map[string]map[string]any{}}
	h.cond = sync.NewCond(&h.mu)
	mux := http.NewServeMux()
	mux.Handle("GET /wait", h.waiter())
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err == nil {
			h.mu.Lock()
			rid, _ := body["run_id"].(string)
			h.got[rid] = body
			h.cond.Broadcast()
			h.mu.Unlock()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

// wait returns the webhook of a run once it arrived.
func (h *hookSink) wait(t testing.TB, runID string) map[string]any {
	t.Helper()
	timer := time.AfterFunc(10*time.Second, func() { h.mu.Lock(); h.cond.Broadcast(); h.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(10 * time.Second)
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.got[runID] == nil && time.Now().Before(deadline) {
		h.cond.Wait()
	}
	require.NotNil(t, h.got[runID], "no webhook for run %s", runID)
	return h.got[runID]
}

func TestReplicaStreamsARunAnotherExecutes(t *testing.T) {
	t.Parallel()
	hs := newReplicas(t, 0, 2)
	api, other := hs[0], hs[1]
	api.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	resp, evs := api.stream("/threads/t/runs/stream", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"},
		"stream_mode": []string{"values", "updates", "messages-tuple", "custom"}})
	assert.Equal(t, []string{"metadata", "values", "custom", "messages", "messages", "updates", "values", "end"}, names(evs))
	for i, ev := range evs {
		assert.Equal(t, itoa(i+1), ev.ID, "event ids count from 1")
	}
	loc := resp.Header.Get("Location")
	require.NotEmpty(t, loc)
	_, joined := other.stream(loc, nil)
	assert.Equal(t, names(evs), names(joined), "the other replica joins the whole stream")
	_, rest := other.stream(loc, nil, "Last-Event-ID", "5")
	assert.Equal(t, names(evs)[5:], names(rest))
	end := decode[map[string]any](t, evs[len(evs)-1].Data)
	assert.Equal(t, "success", end["status"])
	th := other.json("GET", "/threads/t", nil, 200)
	assert.Equal(t, "idle", th["status"])
	assert.Equal(t, []any{"echo: hi"}, th["values"].(map[string]any)["replies"])
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestReplicaSeesAnotherReplicasRunBusyAndRejects(t *testing.T) {
	t.Parallel()
	hs := newReplicas(t, 1, 1)
	a, b := hs[0], hs[1]
	a.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	first := a.json("POST", "/threads/t/runs", gateRun("a"), 200)
	release := a.gate()
	assert.Equal(t, "busy", b.json("GET", "/threads/t", nil, 200)["status"])
	assert.Len(t, b.list("GET", "/threads/t/runs?status=running", nil), 1, "running, as the worker's record says")
	assert.Equal(t, "running", b.json("GET", "/threads/t/runs/"+first["run_id"].(string), nil, 200)["status"])
	code, body := b.do("POST", "/threads/t/runs", gateRun("b"))
	assert.Equal(t, 409, code, "%s", body)
	code, _ = b.do("POST", "/threads/t/state", map[string]any{"values": map[string]any{"steps": []string{"x"}}})
	assert.Equal(t, 409, code)
	close(release)
	out := b.json("GET", "/threads/t/runs/"+first["run_id"].(string)+"/join", nil, 200)
	assert.Equal(t, []any{"a", "first", "waited"}, out["steps"])
	assert.Equal(t, "success", b.json("GET", "/threads/t/runs/"+first["run_id"].(string), nil, 200)["status"])
	assert.Len(t, b.list("GET", "/threads/t/runs", nil), 1, "the rejected run stored nothing")
	assert.Equal(t, "idle", a.json("GET", "/threads/t", nil, 200)["status"])
	b.json("POST", "/threads/t/state", map[string]any{"values": map[string]any{"steps": []string{"x"}}}, 200)
}

func TestReplicaCancelsARunAnotherExecutes(t *testing.T) {
	t.Parallel()
	hs := newReplicas(t, 0, 1)
	api := hs[0]
	api.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	run := api.json("POST", "/threads/t/runs", gateRun("a"), 200)
	api.gate() // never released
	rid := run["run_id"].(string)
	code, body := api.do("POST", "/threads/t/runs/"+rid+"/cancel?wait=1", nil)
	require.Equal(t, 204, code, "%s", body)
	assert.Equal(t, "interrupted", api.json("GET", "/threads/t/runs/"+rid, nil, 200)["status"])
	_, evs := api.stream("/threads/t/runs/"+rid+"/stream", nil)
	require.NotEmpty(t, evs)
	assert.Equal(t, "end", evs[len(evs)-1].Event)
	assert.Equal(t, "idle", api.json("GET", "/threads/t", nil, 200)["status"])
	st := api.json("GET", "/threads/t/state", nil, 200)
	assert.Equal(t, []any{"a", "first"}, st["values"].(map[string]any)["steps"], "the cancelled run keeps its finished steps")
}

func TestReplicaWaitsForAnInterruptAndResumesByID(t *testing.T) {
	t.Parallel()
	hs := newReplicas(t, 1, 1)
	a, b := hs[0], hs[1]
	a.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	out := a.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "input": map[string]any{"topic": "go"}}, 200)
	ins := out["__interrupt__"].([]any)
	require.Len(t, ins, 1)
	id := ins[0].(map[string]any)["id"].(string)
	assert.Equal(t, "interrupted", b.json("GET", "/threads/t", nil, 200)["status"])
	done := b.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "review", "command": map[string]any{"resume": map[string]any{id: "yes"}}}, 200)
	assert.Equal(t, true, done["approved"])
	failed := b.json("POST", "/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "fail"}}, 200)
	assert.Contains(t, failed["__error__"].(map[string]any)["message"], "echo was asked to fail")
}

// eachRuntime runs f in parallel subtests on the in-process runtime and,
// with PostgreSQL, on an API-only replica whose runs another replica's
// workers execute.
func eachRuntime(t *testing.T, f func(t *testing.T, h *harness)) {
	eachRuntimeNamed(t, "", f)
}

func eachRuntimeNamed(t *testing.T, prefix string, f func(t *testing.T, h *harness)) {
	if prefix != "" {
		prefix += "/"
	}
	t.Run(prefix+"in-process", func(t *testing.T) {
		t.Parallel()
		f(t, newHarness(t))
	})
	t.Run(prefix+"workers", func(t *testing.T) {
		t.Parallel()
		f(t, newReplicas(t, 0, 4)[0])
	})
}

func TestCronFiresOnceWhicheverReplicasAreDue(t *testing.T) {
	t.Parallel()
	ticks := []chan time.Time{make(chan time.Time), make(chan time.Time)}
	hooks := newHookSink(t)
	hs := newReplicasWith(t, []int{2, 2}, func(i int) []server.Option { return []server.Option{server.WithCronTicks(ticks[i])} })
	a, b := hs[0], hs[1]
	a.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	c := a.json("POST", "/threads/t/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "*/5 * * * *",
		"input": map[string]any{"input": "tick"}, "webhook": hooks.url}, 200)
	found := b.list("POST", "/runs/crons/search", map[string]any{"thread_id": "t"})
	require.Len(t, found, 1, "every replica sees every cron")
	next, err := time.Parse(time.RFC3339Nano, c["next_run_date"].(string))
	require.NoError(t, err)
	tick(ticks[0], next)
	tick(ticks[1], next)
	runs := b.list("GET", "/threads/t/runs", nil)
	require.Len(t, runs, 1, "one replica fired it")
	rid := runs[0]["run_id"].(string)
	out := b.json("GET", "/threads/t/runs/"+rid+"/join", nil, 200)
	assert.Equal(t, []any{"echo: tick"}, out["replies"])
	hook := hooks.wait(t, rid)
	assert.Equal(t, "success", hook["status"], "the process that finished the run posted its webhook")
	assert.Equal(t, []any{"echo: tick"}, hook["values"].(map[string]any)["replies"])
	moved := b.list("POST", "/runs/crons/search", map[string]any{"thread_id": "t"})[0]
	assert.NotEqual(t, c["next_run_date"], moved["next_run_date"], "the next run moved on for every replica")
	code, _ := b.do("DELETE", "/runs/crons/"+c["cron_id"].(string), nil)
	assert.Equal(t, 204, code)
	assert.Empty(t, a.list("POST", "/runs/crons/search", map[string]any{}))
}

func TestReplicaEndsTheStreamOfARunCancelledBeforeItStarted(t *testing.T) {
	t.Parallel()
	hs := newReplicas(t, 0, 2)
	api := hs[0]
	api.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	api.json("POST", "/threads/t/runs", gateRun("a"), 200)
	release := api.gate()
	queued := api.json("POST", "/threads/t/runs", withStrategy(gateRun("b"), "enqueue"), 200)
	rid := queued["run_id"].(string)
	code, _ := api.do("POST", "/threads/t/runs/"+rid+"/cancel", nil)
	require.Equal(t, 204, code)
	_, evs := api.stream("/threads/t/runs/"+rid+"/stream", nil)
	require.Equal(t, []string{"end"}, names(evs), "no execution wrote its events: the stream makes up its end")
	assert.Equal(t, "interrupted", decode[map[string]any](t, evs[0].Data)["status"])
	code, body := api.do("GET", "/threads/t/runs/"+rid+"/join", nil)
	assert.Equal(t, 200, code)
	assert.JSONEq(t, "null", string(body))
	close(release)
}
