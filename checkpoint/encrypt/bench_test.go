package encrypt_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// BenchmarkSaver runs the saver benchmarks with and without the wrapper,
// on memory (the wrapper's own cost) and SQLite (beside a commit).
func BenchmarkSaver(b *testing.B) {
	ring := newRing(b)
	backends := []struct {
		name string
		open func(tb testing.TB) checkpoint.Saver
	}{
		{"memory", func(testing.TB) checkpoint.Saver { return memory.New() }},
		{"sqlite", func(tb testing.TB) checkpoint.Saver { return openSQLite(tb, filepath.Join(tb.TempDir(), "cp.db")) }},
	}
	for _, be := range backends {
		b.Run(be.name+"/plain", func(b *testing.B) { checkpointtest.Bench(b, be.open) })
		b.Run(be.name+"/encrypted", func(b *testing.B) {
			checkpointtest.Bench(b, func(tb testing.TB) checkpoint.Saver { return encrypt.Wrap(be.open(tb), ring) })
		})
	}
}
