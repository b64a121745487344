package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// roundTrips counts the round trips of a pool: each query, and each
// batch (sent as one), with the statements seen, by their first words.
type roundTrips struct {
	n     atomic.Int64
	mu    sync.Mutex
	stmts map[string]int
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.add("batch")
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (r *roundTrips) add(sql string) {
	r.n.Add(1)
	f := strings.Fields(sql)
	key := strings.Join(f[:min(len(f), 4)], " ")
	r.mu.Lock()
	r.stmts[key]++
	r.mu.Unlock()
}

func (r *roundTrips) reset() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = map[string]int{}
	r.n.Store(0)
	return out
}

// chain compiles a chain of n nodes that each add 1 to Total.
func chain(tb testing.TB, saver *postgres.Saver, n int) *graph.Compiled[Doc] {
	tb.Helper()
	g := graph.New(docs)
	prev := graph.Start
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		g.AddNode(name, func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			return state.Writes(totalF.Set(1)), nil
		})
		g.AddEdge(prev, name)
		prev = name
	}
	c, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(tb, err)
	return c
}

// TestRoundTripsPerRunAndPerStep counts the SQL round trips of runs
// through one worker with the defaults, nobody following them: runs of a
// 10-step and of a 20-step chain, one at a time, so that the difference
// is the cost of ten steps. A step costs its checkpoint write and nothing
// more (no notification: nobody follows); a run a fixed number more
// (enqueue, take the thread, record the end, River's fetch and
// completion). The counts are logged for docs/performance.md.
func TestRoundTripsPerRunAndPerStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rt := &roundTrips{stmts: map[string]int{}}
	pool := newPool(t, func(cfg *pgxpool.Config) { cfg.ConnConfig.Tracer = rt })
	saver := postgres.New(pool, postgres.WithSchema(e.schema))
	reg := worker.NewRegistry()
	worker.Register(reg, "chain10", chain(t, saver, 10), worker.JSONInput(docInput))
	worker.Register(reg, "chain20", chain(t, saver, 20), worker.JSONInput(docInput))
	c, err := worker.New(pool, reg, worker.WithSchema(e.schema), worker.WithSaver(saver),
		worker.WithHeartbeat(time.Hour, 2*time.Hour), // no heartbeat during the count
		worker.WithRiverConfig(func(c *river.Config) { c.Logger = slog.New(slog.DiscardHandler) }))
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, c.Stop(sctx))
	})
	jobs := pgx.Identifier{e.schema, "river_job"}.Sanitize()
	count := func(graphName string, runs int) (float64, map[string]int) {
		rt.reset()
		for i := range runs {
			thread := fmt.Sprintf("%s-%d", graphName, i)
			id, err := c.Enqueue(ctx, worker.Request{Graph: graphName, Thread: thread, Input: DocInput{Topic: thread}})
			require.NoError(t, err)
			// Wait by reading River's table on another pool, so that the
			// wait costs the count nothing; the run is over once River
			// has recorded its job's end.
			require.Eventually(t, func() bool {
				var st string
				err := e.pool.QueryRow(ctx, `SELECT j.state FROM `+jobs+` j WHERE j.args->>'run_id' = $1`, id).Scan(&st)
				return err == nil && st == "completed"
			}, time.Minute, 2*time.Millisecond)
		}
		return float64(rt.n.Load()) / float64(runs), rt.reset()
	}
	const runs = 20
	per10, stmts10 := count("chain10", runs)
	per20, _ := count("chain20", runs)
	perStep := (per20 - per10) / 10
	perRun := per10 - 10*perStep
	t.Logf("round trips: %.1f a run of 10 steps, %.1f of 20; %.2f a step, %.1f a run besides its steps", per10, per20, perStep, perRun)
	t.Logf("statements of %d runs of 10 steps: %v", runs, stmts10)
	require.InDelta(t, 1, perStep, 0.3, "a step costs its checkpoint write")
	require.LessOrEqual(t, perRun, 18.5, "a run's own round trips: enqueue 6, River's fetch and completion, take the thread, take and release its lease, read its head, the input's writes and the step-0 checkpoint (LangGraph's numbering), record the end")
}
