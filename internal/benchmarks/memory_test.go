package benchmarks_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/benchmarks"
)

// W2: the chain of 100 nodes with the memory saver, a serialized
// checkpoint per step, under each durability mode.
func BenchmarkW2Memory(b *testing.B) {
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
		b.Run(d.String(), func(b *testing.B) {
			runChain(b, compiled(b)(benchmarks.Chain(chainLen, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))), nil)
		})
	}
}

// W3 and W5 on the memory saver: the append loop at N = 1,000, then its
// history and latest state.
func BenchmarkW3W5Memory(b *testing.B) {
	b.Run("W3/N=1000", func(b *testing.B) {
		runAppendLoop(b, compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(memory.New()))), historyN, nil)
	})
	c := compiled(b)(benchmarks.AppendLoop(historyN, graph.WithCheckpointer(memory.New())))
	fillHistory(b, c, "w5")
	b.Run("W5/history", func(b *testing.B) { benchHistory(b, c, "w5") })
	b.Run("W5/latest", func(b *testing.B) { benchLatest(b, c, "w5") })
	b.Run("W5/first", func(b *testing.B) { benchFirst(b, c, "w5") })
}
