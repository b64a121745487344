package graph_test

import (
	"context"
	"fmt"
	"testing"

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
