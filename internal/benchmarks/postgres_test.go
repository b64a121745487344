package benchmarks_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// BenchmarkPostgres runs the raw one-row commit (RawCommit: one INSERT in
// autocommit, one round trip) and the runtime's workloads on the
// PostgreSQL saver in one fresh schema of the same database: W6 under
// each durability mode, W3 at N = 1,000, W5, and ColdResume (a new pool
// and saver, compile, read the latest state of the 2,002-checkpoint
// thread). Each durable workload reports x-raw, its time per step over
// the raw commit's measured right after it. It needs
// STATEGRAPH_POSTGRES_DSN.
func BenchmarkPostgres(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.Pool(b, nil)
	schema := pgtest.Schema(b)
	saver := postgres.New(pool, postgres.WithSchema(schema))
	if err := saver.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	raw, err := benchmarks.NewRawPostgres(ctx, pool, schema)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("RawCommit", func(b *testing.B) { benchRaw(b, raw.Commit) })
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
		b.Run("W6/"+d.String(), func(b *testing.B) {
			runChain(b, compiled(b)(benchmarks.Chain(chainLen, graph.WithCheckpointer(saver), graph.WithDurability(d))), raw.Commit)
		})
	}
	b.Run("W3/N=1000", func(b *testing.B) {
		runAppendLoop(b, compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(saver))), historyN, raw.Commit)
	})
	c := compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(saver)))
	fillHistory(b, c, "w5")
	b.Run("W5/history", func(b *testing.B) { benchHistory(b, c, "w5") })
	b.Run("W5/latest", func(b *testing.B) { benchLatest(b, c, "w5") })
	b.Run("W5/first", func(b *testing.B) { benchFirst(b, c, "w5") })
	dsn := pgtest.DSN(b)
	b.Run("ColdResume", func(b *testing.B) {
		coldResume(b, func() (graph.CompileOption, func()) {
			s, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
			if err != nil {
				b.Fatal(err)
			}
			return graph.WithCheckpointer(s), func() { s.Close() }
		})
	})
}
