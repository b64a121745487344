package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
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

// TestReadOnlyReadsAThreadAndWritesNothing pins sqlite.ReadOnly: a thread
// reads as it was stored, a write fails with SQLite's read-only error,
// and the database is left as it was.
func TestReadOnlyReadsAThreadAndWritesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "checkpoints.db")
	w, err := sqlite.Open(path)
	require.NoError(t, err)
	first := put(t, w, "t", "", map[string]string{"a": "1"}, map[string]checkpoint.Blob{"a": full("1", `"x"`)}, checkpoint.Metadata{Source: checkpoint.SourceInput, Step: -1})
	head := put(t, w, "t", first, map[string]string{"a": "1"}, nil, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 0})
	require.NoError(t, w.Close())

	r, err := sqlite.Open(path, sqlite.ReadOnly())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	tup, err := r.Get(context.Background(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, head, tup.Config.CheckpointID)
	require.Equal(t, []byte(`"x"`), tup.Checkpoint.Values["a"].Snapshot)

	_, err = r.Put(context.Background(), checkpoint.PutRequest{
		Config:     tup.Config,
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewIDAfter(head), CreatedAt: time.Now(), Versions: tup.Checkpoint.Versions},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1},
		ExpectHead: head,
	})
	require.ErrorContains(t, err, "readonly")

	var n int
	require.NoError(t, rawDB(t, path).QueryRow(`SELECT count(*) FROM checkpoints`).Scan(&n))
	require.Equal(t, 2, n)
}

// TestReadOnlyRefusesADatabaseThatNeedsMigrating pins that ReadOnly, which
// must not migrate, says how to bring an older database up to date.
func TestReadOnlyRefusesADatabaseThatNeedsMigrating(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "checkpoints.db")
	w, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = rawDB(t, path).Exec(`DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`)
	require.NoError(t, err)

	_, err = sqlite.Open(path, sqlite.ReadOnly())
	require.ErrorContains(t, err, "open it once for writing")
}
