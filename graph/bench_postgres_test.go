package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
)

func postgresSaver(b *testing.B) *postgres.Saver {
	saver := postgres.New(pgtest.Pool(b, nil), postgres.WithSchema(pgtest.Schema(b)))
	if err := saver.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	return saver
}

// W6 on PostgreSQL: W2 with a checkpoint per step committed on PostgreSQL
// (loopback, synchronous commit on).
func BenchmarkW6Chain100Postgres(b *testing.B) {
	benchDurableChain(b, chain100(b, graph.WithCheckpointer(postgresSaver(b))))
}

// W3 on PostgreSQL: the append loop's per-step time must stay flat as the
// history grows.
func BenchmarkW3AppendLoopPostgres(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) {
			c := w3Graph(b, n, postgresSaver(b))
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				out, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread(fmt.Sprint("t", i)), graph.WithRecursionLimit(3*n))
				if err != nil || len(out.Items) != n {
					b.Fatalf("items = %d, err = %v", len(out.Items), err)
				}
			}
			reportPerStep(b, 2*n)
		})
	}
}

// Durability on PostgreSQL when nodes take time (each node waits 300 µs,
// standing in for a model or tool call): under DurabilityAsync a step's
// save overlaps the next node, under DurabilitySync it adds to it.
func BenchmarkDurabilityPostgresSlowNodes(b *testing.B) {
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
		b.Run(d.String(), func(b *testing.B) {
			g := graph.New(schema)
			prev := graph.Start
			for i := range 20 {
				name := fmt.Sprint("n", i)
				g.AddNode(name, func(ctx context.Context, s counter) (state.Update[counter], error) {
					time.Sleep(300 * time.Microsecond)
					return addOne(ctx, s)
				}).AddEdge(prev, name)
				prev = name
			}
			c := mustCompile(b, g, graph.WithCheckpointer(postgresSaver(b)), graph.WithDurability(d))
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				out, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread(fmt.Sprint("t", i)))
				if err != nil || out.N != 20 {
					b.Fatalf("n = %d, err = %v", out.N, err)
				}
			}
			reportPerStep(b, 20)
		})
	}
}
