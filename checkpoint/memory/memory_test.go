package memory_test

import (
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

func newSaver(testing.TB) checkpoint.Saver { return memory.New() }

func TestConformance(t *testing.T) {
	t.Parallel()
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: newSaver,
		WithClock: func(_ testing.TB, now func() time.Time) checkpoint.Saver {
			return memory.New(memory.WithLeaseClock(now))
		},
	})
}

func BenchmarkSaver(b *testing.B) {
	checkpointtest.Bench(b, newSaver)
}
