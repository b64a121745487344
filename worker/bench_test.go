package worker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

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
