package sqlite_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

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
	var files sync.Map // *sqlite.Saver → its file
	openFile := func(tb testing.TB, path string) checkpoint.Saver {
		s, err := sqlite.Open(path)
		require.NoError(tb, err)
		tb.Cleanup(func() { require.NoError(tb, s.Close()) })
		files.Store(s, path)
		return s
	}
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(tb testing.TB) checkpoint.Saver {
			return openFile(tb, filepath.Join(tb.TempDir(), "checkpoints.db"))
		},
		Reopen: func(tb testing.TB, s checkpoint.Saver) checkpoint.Saver {
			path, ok := files.Load(s)
			require.True(tb, ok, "a saver of New")
			return openFile(tb, path.(string))
		},
		WithClock: func(tb testing.TB, now func() time.Time) checkpoint.Saver {
			return openTemp(tb, sqlite.WithLeaseClock(now))
		},
	})
}

func BenchmarkSaver(b *testing.B) {
	for _, mode := range []sqlite.Synchronous{sqlite.SyncNormal, sqlite.SyncFull} {
		b.Run(mode.String(), func(b *testing.B) {
			checkpointtest.Bench(b, func(tb testing.TB) checkpoint.Saver { return openTemp(tb, sqlite.WithSynchronous(mode)) })
		})
	}
}
