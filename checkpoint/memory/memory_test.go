package memory_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

func newSaver(testing.TB) checkpoint.Saver { return memory.New() }

func TestConformance(t *testing.T) {
	t.Parallel()
	checkpointtest.Run(t, newSaver)
}

func BenchmarkSaver(b *testing.B) {
	checkpointtest.Bench(b, newSaver)
}
