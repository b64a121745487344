package graph_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// The workloads of docs/performance.md (W1–W6). Per-step figures are reported as custom
// metrics (ns/step, allocs/step) beside the per-run ns/op.

func addOne(ctx context.Context, s counter) (state.Update[counter], error) {
	return state.Writes(nField.Set(s.N + 1)), nil
}

// chain100 is W1's graph: 100 nodes in a chain, each adding 1.
func chain100(b *testing.B, opts ...graph.CompileOption) *graph.Compiled[counter] {
	g := graph.New(schema)
	prev := graph.Start
	for i := range 100 {
		name := fmt.Sprint("n", i)
		g.AddNode(name, addOne).AddEdge(prev, name)
		prev = name
	}
	return mustCompile(b, g, opts...)
}

func reportPerStep(b *testing.B, steps int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
}

// W1: chain of 100 nodes, each adds 1 to a counter; no saver.
func BenchmarkW1Chain100(b *testing.B) {
	c := chain100(b)
	ctx := context.Background()
	b.ReportAllocs()
	var out counter
	for b.Loop() {
		out, _ = c.Invoke(ctx, state.Update[counter]{}, graph.WithRecursionLimit(200))
	}
	if out.N != 100 {
		b.Fatalf("n = %d", out.N)
	}
	reportPerStep(b, 100)
}

// W2: W1 with the in-memory saver, serialized, a checkpoint per step.
func BenchmarkW2Chain100Memory(b *testing.B) {
	c := chain100(b, graph.WithCheckpointer(memory.New()))
	benchDurableChain(b, c)
}

func benchDurableChain(b *testing.B, c *graph.Compiled[counter]) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		out, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread(fmt.Sprint("t", i)), graph.WithRecursionLimit(200))
		if err != nil || out.N != 100 {
			b.Fatalf("n = %d, err = %v", out.N, err)
		}
	}
	reportPerStep(b, 100)
}

// w3Graph is W3's loop: execute appends one string, route passes, and a
// conditional edge loops back until n strings were appended.
func w3Graph(b testing.TB, n int, saver checkpoint.Saver) *graph.Compiled[counter] {
	g := graph.New(schema).
		AddNode("execute", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"step result"})), nil
		}).
		AddNode("route", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, nil
		}).
		AddEdge(graph.Start, "execute").AddEdge("execute", "route").
		AddConditionalEdges("route", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if len(s.Items) < n {
				return "execute", nil
			}
			return graph.End, nil
		}), "execute", graph.End)
	return mustCompile(b, g, graph.WithCheckpointer(saver))
}

// W3: the append loop with the memory saver at N = 1,000 and 10,000. A
// flat ns/step across N means a step's cost does not grow with history.
func BenchmarkW3AppendLoop(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) {
			c := w3Graph(b, n, memory.New())
			ctx := context.Background()
			b.ReportAllocs()
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

// W4: fan-out to 50 branches appending to a list, then a join.
func BenchmarkW4FanOut50(b *testing.B) {
	g := graph.New(schema).AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Update[counter]{}, nil
	}).AddEdge(graph.Start, "fan")
	var branches []string
	for i := range 50 {
		name := fmt.Sprint("b", i)
		branches = append(branches, name)
		g.AddNode(name, func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{name})), nil
		}).AddEdge("fan", name)
	}
	g.AddNode("join", func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Writes(nField.Set(len(s.Items))), nil
	}).AddJoin(branches, "join")
	c := mustCompile(b, g)
	ctx := context.Background()
	b.ReportAllocs()
	var out counter
	for b.Loop() {
		out, _ = c.Invoke(ctx, state.Update[counter]{})
	}
	if out.N != 50 {
		b.Fatalf("n = %d", out.N)
	}
}

// W5: after W3 at N=1,000 (2,002 checkpoints): the full history (time to
// the first item and to all), and the latest state.
func BenchmarkW5TimeTravel(b *testing.B) {
	c := w3Graph(b, 1000, memory.New())
	ctx := context.Background()
	if _, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.WithRecursionLimit(3000)); err != nil {
		b.Fatal(err)
	}
	b.Run("history", func(b *testing.B) {
		b.ReportAllocs()
		var first time.Duration
		for b.Loop() {
			start := time.Now()
			n := 0
			for _, err := range c.History(ctx, graph.WithThread("t")) {
				if err != nil {
					b.Fatal(err)
				}
				if n == 0 {
					first += time.Since(start)
				}
				n++
			}
			if n != 2002 {
				b.Fatalf("history has %d checkpoints", n)
			}
		}
		b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-ns")
	})
	b.Run("latest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := c.State(ctx, graph.WithThread("t"))
			if err != nil || len(s.Values.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
}

// W6: W2 on SQLite in WAL mode, at synchronous=NORMAL (survives a process
// crash) and FULL (survives a power loss).
func BenchmarkW6Chain100SQLite(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run(sync.String(), func(b *testing.B) {
			saver, err := sqlite.Open(filepath.Join(b.TempDir(), "w6.db"), sqlite.WithSynchronous(sync))
			if err != nil {
				b.Fatal(err)
			}
			defer saver.Close()
			benchDurableChain(b, chain100(b, graph.WithCheckpointer(saver)))
		})
	}
}
