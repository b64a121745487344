package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A database on a read-only file in a read-only directory (a mount, a
// copy from a backup) is read as it is: reading commands work, and a
// command that writes fails saying the database is read-only. Root is not
// refused by file permissions, so the test runs only as another user.
func TestReadOnlyDatabaseIsReadAndWritesAreRefused(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root is not refused by file permissions")
	}
	src := sqliteDB(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "ro.db")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(db, data, 0o444))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })

	r := onDB(t, db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "done-1")
	r = onDB(t, db, "history", "done-1")
	require.Equal(t, 0, r.code, r.stderr)

	r = onDB(t, db, "prune", "done-1", "--keep", "1", "-y")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "readonly")
}
