package benchmarks_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/state"
)

// BenchmarkSQLite runs, at each synchronous level, the raw one-row commit
// (RawCommit) and the runtime's workloads on the SQLite saver in the same
// directory: W6 (the chain, a checkpoint a step) under each durability
// mode, W3 (the append loop at N = 1,000), W5 (its history, its first
// item and its latest state) and ColdResume (open the file, compile, read the latest state of
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
			b.Run("RawCommit", func(b *testing.B) {
				benchRaw(b, raw.Commit)
				walPages(b, filepath.Join(dir, "raw.db"), chainLen, func() {
					for range chainLen {
						if err := raw.Commit(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
			for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
				b.Run("W6/"+d.String(), func(b *testing.B) {
					name := "w6-" + d.String() + ".db"
					s := open(b, name)
					defer s.Close()
					c := compiled(b)(benchmarks.Chain(chainLen, graph.WithCheckpointer(s), graph.WithDurability(d)))
					runChain(b, c, raw.Commit)
					walPages(b, filepath.Join(dir, name), chainLen, func() {
						if _, err := c.Invoke(context.Background(), state.Update[benchmarks.Counter]{}, graph.WithThread(thread(b)), graph.WithRecursionLimit(2*chainLen)); err != nil {
							b.Fatal(err)
						}
					})
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
			b.Run("W5/first", func(b *testing.B) { benchFirst(b, c, "w5") })
			b.Run("ColdResume", func(b *testing.B) {
				coldResume(b, func() (graph.CompileOption, func()) {
					s := open(b, "w5.db")
					return graph.WithCheckpointer(s), func() { s.Close() }
				})
			})
		})
	}
}

// walPages reports wal-pages/step: the pages that SQLite appends to the
// write-ahead log of the database at path while op makes steps commits
// (as measured, off the clock, from an empty log: every commit appends
// the pages it changed, so this is what a commit writes).
func walPages(b *testing.B, path string, steps int, op func()) {
	b.Helper()
	b.StopTimer()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	frames := func(mode string) int {
		var busy, log, done int
		if err := db.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &done); err != nil {
			b.Fatal(err)
		}
		return log
	}
	frames("TRUNCATE")
	op()
	b.ReportMetric(float64(frames("PASSIVE"))/float64(steps), "wal-pages/step")
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

// BenchmarkSQLiteSlowNodes runs, in WAL with synchronous=NORMAL, a chain
// of 20 nodes that each wait 100 µs, under each durability mode: under
// DurabilityAsync a step's save (one commit, ~50 µs) can hide behind the
// next node.
func BenchmarkSQLiteSlowNodes(b *testing.B) {
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
		b.Run(d.String(), func(b *testing.B) {
			s, err := sqlite.Open(filepath.Join(b.TempDir(), "slow.db"), sqlite.WithSynchronous(sqlite.SyncNormal))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c := compiled(b)(benchmarks.SlowChain(slowChainLen, 100*time.Microsecond, graph.WithCheckpointer(s), graph.WithDurability(d)))
			stepsVersusRaw(b, slowChainLen, nil, func(ctx context.Context, thread string) {
				out, err := c.Invoke(ctx, state.Update[benchmarks.Counter]{}, graph.WithThread(thread))
				if err != nil || out.N != slowChainLen {
					b.Fatalf("n = %d, err = %v", out.N, err)
				}
			})
		})
	}
}

// slowChainLen is the length of the slow-node chains.
const slowChainLen = 20
