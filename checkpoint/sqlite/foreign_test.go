package sqlite_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	migrations "github.com/stategraph/stategraph/internal/migrate/sqlmigrate"
)

// TestOpenRefusesAnotherProgramsDatabaseAndLeavesItAsItWas pins that Open
// does not add its tables to a SQLite file of another program, nor switch
// it to WAL: the error names the file's tables, and its bytes are the same
// afterwards.
func TestOpenRefusesAnotherProgramsDatabaseAndLeavesItAsItWas(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.db")
	db := rawDB(t, path)
	_, err := db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ann')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	_, err = sqlite.Open(path)
	require.ErrorContains(t, err, "not a stategraph checkpoint database")
	require.ErrorContains(t, err, "users")

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after, "the file was changed")
	_, err = os.Stat(path + "-wal")
	require.ErrorIs(t, err, os.ErrNotExist, "the file was switched to WAL")
	var mode string
	require.NoError(t, rawDB(t, path).QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "delete", mode)
}

// TestOpenRefusesADatabaseANewerReleaseMigrated pins that a database at a
// schema version this program does not know is refused with the versions
// named, before anything is written to it.
func TestOpenRefusesADatabaseANewerReleaseMigrated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	db := rawDB(t, path)
	var known int
	require.NoError(t, db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&known))
	_, err = db.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 'later')`, known+1)
	require.NoError(t, err)

	_, err = sqlite.Open(path)
	var newer *migrations.NewerError
	require.True(t, errors.As(err, &newer), "got %v", err)
	require.Equal(t, migrations.NewerError{Version: known + 1, Known: known}, *newer)
	require.ErrorContains(t, err, "newer than this program knows")

	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n))
	require.Equal(t, known+1, n, "nothing was recorded")
}

// TestOpenAcceptsAFileWithOnlyItsOwnTables pins the other side: a file a
// stategraph program made (or an empty one) opens as before.
func TestOpenAcceptsAFileWithOnlyItsOwnTables(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	for range 2 {
		s, err := sqlite.Open(path)
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
}
