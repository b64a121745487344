package benchmarks_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
	"github.com/stategraph/stategraph/state"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// chainLen is the length of the W2/W6 chain: 100 nodes, a checkpoint each.
const chainLen = 100

// historyN is W3's N for the W5 history: 1,000 appends in 2,000 steps.
const historyN = 1000

// historyLen is the number of checkpoints of the W5 thread: the input's,
// step 0's (the input applied) and one a step.
const historyLen = 2*historyN + 2

// compiled returns a function that fails b on a compile error, for
// compiled(b)(benchmarks.Chain(...)).
func compiled(b *testing.B) func(*graph.Compiled[benchmarks.Counter], error) *graph.Compiled[benchmarks.Counter] {
	return func(c *graph.Compiled[benchmarks.Counter], err error) *graph.Compiled[benchmarks.Counter] {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
}

// threads numbers the threads the benchmarks run on, across the process.
var threads atomic.Int64

// thread returns a new thread id for benchmark b: benchmarks that share a
// saver never share a thread, and neither do the repeats of one benchmark
// under -count (which run in the same directory), or a repeat would only
// read back the finished run of the one before. A benchmark's ids grow,
// so each new thread sorts after the ones before it, as the measurements
// in docs/performance.md have always had it.
func thread(b *testing.B) string {
	return fmt.Sprintf("%s/%09d", b.Name(), threads.Add(1))
}

// runChain runs the chain b.N times, each on a fresh thread, and reports
// ns/step (see stepsVersusRaw for raw).
func runChain(b *testing.B, c *graph.Compiled[benchmarks.Counter], raw func(context.Context) error) {
	stepsVersusRaw(b, chainLen, raw, func(ctx context.Context, thread string) {
		out, err := c.Invoke(ctx, state.Update[benchmarks.Counter]{}, graph.WithThread(thread), graph.WithRecursionLimit(2*chainLen))
		if err != nil || out.N != chainLen {
			b.Fatalf("n = %d, err = %v", out.N, err)
		}
	})
}

// runAppendLoop runs W3's loop at N = n b.N times on fresh threads.
func runAppendLoop(b *testing.B, c *graph.Compiled[benchmarks.Counter], n int, raw func(context.Context) error) {
	stepsVersusRaw(b, 2*n, raw, func(ctx context.Context, thread string) {
		out, err := c.Invoke(ctx, state.Update[benchmarks.Counter]{}, graph.WithThread(thread), graph.WithRecursionLimit(3*n))
		if err != nil || len(out.Items) != n {
			b.Fatalf("items = %d, err = %v", len(out.Items), err)
		}
	})
}

// stepsVersusRaw runs op (a run of steps steps on a fresh thread) b.N
// times and reports ns/step and allocs/step. With raw (the raw one-row
// commit of the store the run writes to), it also runs, after each op and
// off the clock, as many raw commits as op made steps, and reports their
// time (raw-ns per commit) and ns/step over it (x-raw): interleaved, the
// two see the same machine, which matters when it is shared and its
// speed changes from one second to the next.
func stepsVersusRaw(b *testing.B, steps int, raw func(context.Context) error, op func(ctx context.Context, thread string)) {
	ctx := context.Background()
	b.ReportAllocs()
	var rawTime time.Duration
	for b.Loop() {
		op(ctx, thread(b))
		if raw == nil {
			continue
		}
		b.StopTimer()
		start := time.Now()
		for range steps {
			if err := raw(ctx); err != nil {
				b.Fatalf("raw commit: %v", err)
			}
		}
		rawTime += time.Since(start)
		b.StartTimer()
	}
	step := float64(b.Elapsed().Nanoseconds()) / float64(b.N*steps)
	b.ReportMetric(step, "ns/step")
	if raw != nil {
		rawNs := float64(rawTime.Nanoseconds()) / float64(b.N*steps)
		b.ReportMetric(rawNs, "raw-ns")
		b.ReportMetric(step/rawNs, "x-raw")
	}
}

// benchRaw is the raw one-row commit as a benchmark of its own.
func benchRaw(b *testing.B, commit func(context.Context) error) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := commit(ctx); err != nil {
			b.Fatalf("raw commit: %v", err)
		}
	}
}

// fillHistory runs W3's loop at N = historyN on thread, for the W5
// benchmarks.
func fillHistory(b *testing.B, c *graph.Compiled[benchmarks.Counter], thread string) {
	b.Helper()
	_, err := c.Invoke(context.Background(), state.Update[benchmarks.Counter]{}, graph.WithThread(thread), graph.WithRecursionLimit(3*historyN))
	if err != nil {
		b.Fatal(err)
	}
}

// benchHistory reads the full history of thread (historyLen checkpoints) and
// reports the time to the first item (first-ns).
func benchHistory(b *testing.B, c *graph.Compiled[benchmarks.Counter], thread string) {
	ctx := context.Background()
	b.ReportAllocs()
	var first time.Duration
	for b.Loop() {
		start := time.Now()
		n := 0
		for _, err := range c.History(ctx, graph.WithThread(thread)) {
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				first += time.Since(start)
			}
			n++
		}
		if n != historyLen {
			b.Fatalf("history has %d checkpoints", n)
		}
	}
	b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-ns")
}

// benchFirst reads the first item of thread's history and stops: the
// latency a caller that shows the newest snapshot pays. It differs from
// benchHistory's first-ns, which each iteration measures right after the
// one before made ~7.5 MB of snapshots: there the first item also pays
// for collecting them (about half of it on SQLite; with GOGC=off, 135 →
// 69 µs).
func benchFirst(b *testing.B, c *graph.Compiled[benchmarks.Counter], thread string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for s, err := range c.History(ctx, graph.WithThread(thread)) {
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Values.Items) != historyN {
				b.Fatalf("first item has %d items", len(s.Values.Items))
			}
			n++
			break
		}
		if n != 1 {
			b.Fatal("history is empty")
		}
	}
}

// benchLatest reads the latest state of thread.
func benchLatest(b *testing.B, c *graph.Compiled[benchmarks.Counter], thread string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.State(ctx, graph.WithThread(thread))
		if err != nil || len(s.Values.Items) != historyN {
			b.Fatalf("state: %v", err)
		}
	}
}
