package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// openTemp opens a Saver on a new file in a temporary directory and closes
// it when tb ends.
func openTemp(tb testing.TB, opts ...sqlite.Option) *sqlite.Saver {
	tb.Helper()
	s, err := sqlite.Open(filepath.Join(tb.TempDir(), "checkpoints.db"), opts...)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, s.Close()) })
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	checkpointtest.Run(t, func(tb testing.TB) checkpoint.Saver { return openTemp(tb) })
}

func BenchmarkSaver(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run(sync.String(), func(b *testing.B) {
			checkpointtest.Bench(b, func(tb testing.TB) checkpoint.Saver { return openTemp(tb, sqlite.WithSynchronous(sync)) })
		})
	}
}
