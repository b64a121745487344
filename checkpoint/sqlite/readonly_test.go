package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// skipIfRoot skips a test of file permissions, which root does not obey.
func skipIfRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("root is not refused by file permissions")
	}
}

func TestOpenOfAReadOnlyFileSaysTheFileIsReadOnly(t *testing.T) {
	t.Parallel()
	skipIfRoot(t)
	path := filepath.Join(t.TempDir(), "checkpoints.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, os.Chmod(path, 0o444))

	_, err = sqlite.Open(path)
	require.Error(t, err)
	require.ErrorContains(t, err, "the database file is read-only")
	require.ErrorContains(t, err, path)
}

func TestOpenInAReadOnlyDirectorySaysTheDirectoryIsReadOnly(t *testing.T) {
	t.Parallel()
	skipIfRoot(t)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })

	_, err := sqlite.Open(filepath.Join(dir, "checkpoints.db"))
	require.Error(t, err)
	require.ErrorContains(t, err, "is read-only")
	require.ErrorContains(t, err, dir)
}
