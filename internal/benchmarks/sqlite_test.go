package benchmarks_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
)

// BenchmarkSQLite runs, at each synchronous level, the raw one-row commit
// (RawCommit) and the runtime's workloads on the SQLite saver in the same
// directory: W6 (the chain, a checkpoint a step) under each durability
// mode, W3 (the append loop at N = 1,000), W5 (its history and latest
// state) and ColdResume (open the file, compile, read the latest state of
// the 2,002-checkpoint thread: what a new process pays to resume). Each
// durable workload reports x-raw, its time per step over the raw commit's
// measured right after it.
func BenchmarkSQLite(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run(sync.String(), func(b *testing.B) {
			dir := b.TempDir()
			raw, err := benchmarks.OpenRawSQLite(filepath.Join(dir, "raw.db"), sync.String())
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			open := func(b *testing.B, name string) *sqlite.Saver {
				s, err := sqlite.Open(filepath.Join(dir, name), sqlite.WithSynchronous(sync))
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			b.Run("RawCommit", func(b *testing.B) { benchRaw(b, raw.Commit) })
			for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
				b.Run("W6/"+d.String(), func(b *testing.B) {
					s := open(b, "w6-"+d.String()+".db")
					defer s.Close()
					runChain(b, compiled(b)(benchmarks.Chain(chainLen, graph.WithCheckpointer(s), graph.WithDurability(d))), raw.Commit)
				})
			}
			b.Run("W3/N=1000", func(b *testing.B) {
				s := open(b, "w3.db")
				defer s.Close()
				runAppendLoop(b, compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(s))), historyN, raw.Commit)
			})

			s := open(b, "w5.db")
			defer s.Close()
			c := compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(s)))
			fillHistory(b, c, "w5")
			b.Run("W5/history", func(b *testing.B) { benchHistory(b, c, "w5") })
			b.Run("W5/latest", func(b *testing.B) { benchLatest(b, c, "w5") })
			b.Run("ColdResume", func(b *testing.B) {
				coldResume(b, func() (graph.CompileOption, func()) {
					s := open(b, "w5.db")
					return graph.WithCheckpointer(s), func() { s.Close() }
				})
			})
		})
	}
}

// coldResume opens the store (open returns the compile option naming its
// saver, and how to close it), compiles the graph and reads the latest
// state of the W5 thread, b.N times: nothing is cached between
// iterations.
func coldResume(b *testing.B, open func() (graph.CompileOption, func())) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		opt, closeStore := open()
		c := compiled(b)(benchmarks.AppendLoop(historyN, opt))
		s, err := c.State(ctx, graph.WithThread("w5"))
		if err != nil || len(s.Values.Items) != historyN {
			b.Fatalf("state: %v", err)
		}
		closeStore()
	}
}
