package worker_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// newPool returns a pool on the test database, closed when tb ends.
func newPool(tb testing.TB, configure func(*pgxpool.Config)) *pgxpool.Pool {
	return pgtest.Pool(tb, configure)
}

// newSchema returns a fresh PostgreSQL schema name, dropped with all in
// it when tb ends: River's tables, the runs and the checkpoints of a test
// never meet another test's.
func newSchema(tb testing.TB) string { return pgtest.Schema(tb) }

// Doc is the state of the test graphs. Topic is the thread's name (the
// nodes log it), Trail the nodes that ran, Total a sum the input and
// every node add to, Answer what a human answered.
type Doc struct {
	Topic  string   `json:"topic"`
	Trail  []string `json:"trail"`
	Total  int      `json:"total"`
	Answer string   `json:"answer"`
}

var (
	topicF  = state.Value("topic", func(d *Doc) *string { return &d.Topic })
	trailF  = state.Append("trail", func(d *Doc) *[]string { return &d.Trail })
	totalF  = state.Sum("total", func(d *Doc) *int { return &d.Total })
	answerF = state.Value("answer", func(d *Doc) *string { return &d.Answer })
	docs    = state.NewSchema(topicF, trailF, totalF, answerF)
)

// DocInput is the JSON input of the test graphs.
type DocInput struct {
	Topic string `json:"topic"`
	Add   int    `json:"add"`
}

func docInput(in DocInput) (state.Update[Doc], error) {
	return state.Writes(topicF.Set(in.Topic), totalF.Set(in.Add)), nil
}

// hook runs in a node before it logs and returns; a non-nil error fails
// the node.
type hook func(ctx context.Context, topic, node string) error

// env is one test's database: a schema with River's tables, the runs,
// the checkpoints, and a node log the test graphs write to.
type env struct {
	tb     testing.TB
	pool   *pgxpool.Pool
	schema string
	saver  *postgres.Saver
	log    string // the node log table
}

// newEnv migrates a fresh schema.
func newEnv(tb testing.TB) *env {
	tb.Helper()
	return openEnv(tb, newSchema(tb), true)
}

// openEnv opens an existing schema (migrate: migrate it first).
func openEnv(tb testing.TB, schema string, migrate bool) *env {
	tb.Helper()
	return openEnvOn(tb, newPool(tb, nil), schema, migrate)
}

// openEnvPool opens an existing schema on a pool configured by configure.
func openEnvPool(tb testing.TB, schema string, configure func(*pgxpool.Config)) *env {
	tb.Helper()
	return openEnvOn(tb, newPool(tb, configure), schema, false)
}

func openEnvOn(tb testing.TB, pool *pgxpool.Pool, schema string, migrate bool) *env {
	tb.Helper()
	e := &env{tb: tb, pool: pool, schema: schema, saver: postgres.New(pool, postgres.WithSchema(schema)),
		log: pgx.Identifier{schema, "node_log"}.Sanitize()}
	if migrate {
		c, err := worker.New(pool, nil, worker.WithSchema(schema))
		require.NoError(tb, err)
		require.NoError(tb, c.Migrate(context.Background()))
		_, err = pool.Exec(context.Background(), `CREATE TABLE `+e.log+` (topic text NOT NULL, node text NOT NULL, pid integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`)
		require.NoError(tb, err)
	}
	return e
}

// pipeline compiles the test graph on the env's saver: a and b in
// parallel, then c once both have finished, then d. Each node runs h
// (when set), logs (topic, node, pid), appends its name to Trail and adds
// 1 to Total.
func (e *env) pipeline(h hook) *graph.Compiled[Doc] {
	return compilePipeline(e.tb, e.saver, e.pool, e.log, h)
}

func compilePipeline(tb testing.TB, saver checkpoint.Saver, pool *pgxpool.Pool, log string, h hook) *graph.Compiled[Doc] {
	tb.Helper()
	node := func(name string) graph.NodeFunc[Doc] {
		return func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			if h != nil {
				if err := h(ctx, d.Topic, name); err != nil {
					return state.Update[Doc]{}, err
				}
			}
			if pool != nil {
				if _, err := pool.Exec(ctx, `INSERT INTO `+log+` (topic, node, pid) VALUES ($1, $2, $3)`, d.Topic, name, os.Getpid()); err != nil {
					return state.Update[Doc]{}, err
				}
			}
			return state.Writes(trailF.Set([]string{name}), totalF.Set(1)), nil
		}
	}
	g := graph.New(docs).
		AddNode("a", node("a")).AddNode("b", node("b")).AddNode("c", node("c")).AddNode("d", node("d")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").
		AddJoin([]string{"a", "b"}, "c").AddEdge("c", "d")
	c, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(tb, err)
	return c
}

// reference runs the pipeline on a memory saver, never interrupted.
func reference(tb testing.TB, in DocInput, runs int) Doc {
	tb.Helper()
	g := compilePipeline(tb, memory.New(), nil, "", nil)
	var out Doc
	for range runs {
		upd, err := docInput(in)
		require.NoError(tb, err)
		out, err = g.Invoke(context.Background(), upd, graph.WithThread("ref"))
		require.NoError(tb, err)
	}
	return out
}

// review compiles a graph that drafts, then asks a human.
func (e *env) review() *graph.Compiled[Doc] {
	g := graph.New(docs).
		AddNode("draft", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			return state.Writes(trailF.Set([]string{"draft"})), nil
		}).
		AddNode("ask", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			ans, err := graph.Interrupt[string](ctx, "publish "+d.Topic+"?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			return state.Writes(answerF.Set(ans), trailF.Set([]string{"ask"})), nil
		}).
		AddEdge(graph.Start, "draft").AddEdge("draft", "ask")
	c, err := g.Compile(graph.WithCheckpointer(e.saver))
	require.NoError(e.tb, err)
	return c
}

// fastRetry retries a failed job after 50ms.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(50 * time.Millisecond) }

// testRiver makes River quick and quiet for tests.
func testRiver(extra func(*river.Config)) worker.Option {
	return worker.WithRiverConfig(func(c *river.Config) {
		c.TestOnly = true
		c.FetchCooldown = 5 * time.Millisecond
		c.FetchPollInterval = 50 * time.Millisecond
		c.RetryPolicy = fastRetry{}
		c.Logger = slog.New(slog.DiscardHandler)
		if extra != nil {
			extra(c)
		}
	})
}

// client returns a started worker Client on the env's schema working the
// registry's graphs, stopped when the test ends.
func (e *env) client(reg *worker.Registry, opts ...worker.Option) *worker.Client {
	e.tb.Helper()
	base := []worker.Option{worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithSnoozeInterval(50 * time.Millisecond), worker.WithPollInterval(200 * time.Millisecond), testRiver(nil)}
	c, err := worker.New(e.pool, reg, append(base, opts...)...)
	require.NoError(e.tb, err)
	if reg != nil {
		require.NoError(e.tb, c.Start(context.Background()))
		e.tb.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(e.tb, c.Stop(ctx))
		})
	}
	return c
}

// registry registers g as "pipeline" (or the name given).
func registry(g *graph.Compiled[Doc], name string) *worker.Registry {
	reg := worker.NewRegistry()
	worker.Register(reg, name, g, worker.JSONInput(docInput))
	return reg
}

// nodeLog returns how many times each node ran for topic.
func (e *env) nodeLog(topic string) map[string]int {
	e.tb.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT node, count(*) FROM `+e.log+` WHERE topic = $1 GROUP BY node`, topic)
	require.NoError(e.tb, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		node string
		n    int
	}, error) {
		var v struct {
			node string
			n    int
		}
		return v, r.Scan(&v.node, &v.n)
	})
	require.NoError(e.tb, err)
	m := map[string]int{}
	for _, v := range out {
		m[v.node] = v.n
	}
	return m
}

// wait waits for the run to end, for at most a minute.
func wait(tb testing.TB, c *worker.Client, runID string) *worker.Run {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.Wait(ctx, runID)
	require.NoError(tb, err)
	return r
}

// result decodes a run's result.
func result(tb testing.TB, r *worker.Run) Doc {
	tb.Helper()
	var d Doc
	require.NoError(tb, json.Unmarshal(r.Result, &d))
	return d
}

// gate is a node hook that parks the named node of the given topic until
// released, reporting when it got there.
type gate struct {
	node, topic string
	arrived     chan struct{}
	release     chan struct{}
}

func newGate(topic, node string) *gate {
	return &gate{node: node, topic: topic, arrived: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gate) hook(ctx context.Context, topic, node string) error {
	if node != g.node || topic != g.topic {
		return nil
	}
	g.arrived <- struct{}{}
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// await waits until a run reached the gate.
func (g *gate) await(tb testing.TB) {
	tb.Helper()
	select {
	case <-g.arrived:
	case <-time.After(time.Minute):
		tb.Fatalf("no run reached node %q of %q", g.node, g.topic)
	}
}

// asks compiles a graph whose two nodes, ask1 and ask2, run in parallel
// from Start and each ask a human; each appends "<node>:<answer>" to
// Trail. after, when set, runs in a node once it has its answer.
func (e *env) asks(after func(ctx context.Context, node string) error) *graph.Compiled[Doc] {
	e.tb.Helper()
	ask := func(name string) graph.NodeFunc[Doc] {
		return func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			ans, err := graph.Interrupt[string](ctx, name+"?")
			if err != nil {
				return state.Update[Doc]{}, err
			}
			if after != nil {
				if err := after(ctx, name); err != nil {
					return state.Update[Doc]{}, err
				}
			}
			return state.Writes(trailF.Set([]string{name + ":" + ans})), nil
		}
	}
	g := graph.New(docs).
		AddNode("ask1", ask("ask1")).AddNode("ask2", ask("ask2")).
		AddEdge(graph.Start, "ask1").AddEdge(graph.Start, "ask2")
	c, err := g.Compile(graph.WithCheckpointer(e.saver))
	require.NoError(e.tb, err)
	return c
}

// jobState reads the state of a River job.
func (e *env) jobState(ctx context.Context, id int64) string {
	e.tb.Helper()
	var st string
	require.NoError(e.tb, e.pool.QueryRow(ctx, `SELECT state FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()+` WHERE id = $1`, id).Scan(&st))
	return st
}

// answers answers every interrupt of an interrupted run with "<node>-yes".
func answers(r *worker.Run) map[string]any {
	m := map[string]any{}
	for _, in := range r.Interrupts {
		m[in.ID] = in.Node + "-yes"
	}
	return m
}
