package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stretchr/testify/require"
)

func TestThreadSize(t *testing.T) {
	t.Parallel()
	checkpointtest.RunSize(t, checkpointtest.Harness{New: func(tb testing.TB) checkpoint.Saver {
		s, err := sqlite.Open(filepath.Join(tb.TempDir(), "checkpoints.db"))
		require.NoError(tb, err)
		tb.Cleanup(func() { require.NoError(tb, s.Close()) })
		return s
	}})
}
