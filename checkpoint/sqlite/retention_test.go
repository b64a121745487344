package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/retention/retentiontest"
)

func TestRetention(t *testing.T) {
	t.Parallel()
	retentiontest.Run(t, func(tb testing.TB) checkpoint.Saver {
		s, err := sqlite.Open(filepath.Join(tb.TempDir(), "retention.db"))
		require.NoError(tb, err)
		tb.Cleanup(func() { require.NoError(tb, s.Close()) })
		return s
	})
}
