package worker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// BenchmarkRuns measures runs per second through the workers: b.N runs
// of a three-node chain on distinct threads are enqueued, then one Client
// with 1, 2 or 4 worker goroutines works them all. Every step is a
// durable PostgreSQL checkpoint (four per run, with the input's).
func BenchmarkRuns(b *testing.B) {
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			e := newEnv(b)
			node := func(name string) graph.NodeFunc[Doc] {
				return func(ctx context.Context, d Doc) (state.Update[Doc], error) {
					return state.Writes(trailF.Set([]string{name}), totalF.Set(1)), nil
				}
			}
			g, err := graph.New(docs).AddNode("a", node("a")).AddNode("b", node("b")).AddNode("c", node("c")).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c").
				Compile(graph.WithCheckpointer(e.saver))
			require.NoError(b, err)
			c, err := worker.New(e.pool, registry(g, "chain"), worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithWorkers(workers), testRiver(func(c *river.Config) { c.FetchCooldown = time.Millisecond }))
			require.NoError(b, err)
			ctx := context.Background()
			require.NoError(b, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
				for i := range b.N {
					thread := fmt.Sprintf("bench-%d", i)
					if _, err := c.EnqueueTx(ctx, tx, worker.Request{Graph: "chain", Thread: thread, Input: DocInput{Topic: thread}}); err != nil {
						return err
					}
				}
				return nil
			}))
			done, stop := c.River().Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
			defer stop()
			b.ResetTimer()
			require.NoError(b, c.Start(ctx))
			for range b.N {
				select {
				case ev := <-done:
					require.Equal(b, river.EventKindJobCompleted, ev.Kind)
				case <-time.After(time.Minute):
					b.Fatal("runs stopped completing")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			require.NoError(b, c.Stop(sctx))
		})
	}
}

// chain10 compiles the throughput graph: ten nodes in a chain, each
// waiting 2 ms as an I/O-bound node (a model or tool call) would, then
// adding 1 to Total.
func chain10(tb testing.TB, saver *postgres.Saver) *graph.Compiled[Doc] {
	tb.Helper()
	g := graph.New(docs)
	prev := graph.Start
	for i := range 10 {
		name := fmt.Sprintf("n%d", i)
		g.AddNode(name, func(ctx context.Context, d Doc) (state.Update[Doc], error) {
			select {
			case <-time.After(2 * time.Millisecond):
			case <-ctx.Done():
				return state.Update[Doc]{}, ctx.Err()
			}
			return state.Writes(totalF.Set(1)), nil
		})
		g.AddEdge(prev, name)
		prev = name
	}
	c, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(tb, err)
	return c
}

// benchWorker is a worker process of BenchmarkRunsAcrossProcesses: the
// package's defaults, a pool as the docs advise, the chain10 graph.
func benchWorker(t *testing.T, e *env) {
	c, err := worker.New(e.pool, registry(chain10(t, e.saver), "chain10"),
		worker.WithSchema(e.schema), worker.WithSaver(e.saver),
		worker.WithRiverConfig(func(c *river.Config) { c.Logger = slog.New(slog.DiscardHandler) }))
	require.NoError(t, err)
	require.NoError(t, c.Start(context.Background()))
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the parent closes it
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Stop(ctx))
}

// BenchmarkRunsAcrossProcesses measures runs per second of 1, 2 and 4
// worker processes (the test binary re-executed) with the package's
// defaults: b.N runs of chain10 (ten 2 ms nodes, eleven durable
// checkpoints a run) on distinct threads are enqueued, then the
// processes start and work them all. runs/s is b.N over the time from the
// first run's start to the last one's end, as the database recorded them.
func BenchmarkRunsAcrossProcesses(b *testing.B) {
	for _, procs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			e := newEnv(b)
			c, err := worker.New(e.pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver))
			require.NoError(b, err)
			ctx := context.Background()
			require.NoError(b, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
				for i := range b.N {
					thread := fmt.Sprintf("bench-%d", i)
					if _, err := c.EnqueueTx(ctx, tx, worker.Request{Graph: "chain10", Thread: thread, Input: DocInput{Topic: thread}}); err != nil {
						return err
					}
				}
				return nil
			}))
			b.ResetTimer()
			var wg sync.WaitGroup
			for range procs {
				wg.Go(func() { startWorker(b, e.schema, false, "STATEGRAPH_WORKER_MODE=bench") })
			}
			wg.Wait()
			runs := pgx.Identifier{e.schema, "stategraph_runs"}.Sanitize()
			jobs := pgx.Identifier{e.schema, "river_job"}.Sanitize()
			deadline := time.Now().Add(5 * time.Minute)
			for {
				var active int
				require.NoError(b, e.pool.QueryRow(ctx, `SELECT count(*) FROM `+runs+` WHERE status NOT IN ('success', 'error', 'cancelled', 'interrupted')`).Scan(&active))
				if active == 0 {
					break
				}
				require.True(b, time.Now().Before(deadline), "%d runs still active", active)
				time.Sleep(20 * time.Millisecond)
			}
			b.StopTimer()
			var failed int
			var span float64
			require.NoError(b, e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE r.status <> 'success'),
	extract(epoch FROM max(r.updated_at) - min(j.attempted_at))
FROM `+runs+` r JOIN `+jobs+` j ON j.id = r.job_id`).Scan(&failed, &span))
			require.Zero(b, failed)
			b.ReportMetric(float64(b.N)/span, "runs/s")
		})
	}
}
