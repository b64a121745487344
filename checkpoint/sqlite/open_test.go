package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// walDB makes a SQLite file in WAL mode at path, holding stmts.
func walDB(t *testing.T, path string, stmts string) {
	t.Helper()
	db := rawDB(t, path)
	var mode string
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode))
	require.Equal(t, "wal", mode)
	if stmts != "" {
		_, err := db.Exec(stmts)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
}

// A file already in WAL mode is checked on a read connection (Open's
// fast way): another program's tables are refused there too, and nothing
// is added to the file.
func TestOpenRefusesAnotherProgramsWALDatabaseAndAddsNothing(t *testing.T) {
	t.Parallel()
	for name, stmts := range map[string]string{
		"only foreign tables": `CREATE TABLE users (id INTEGER PRIMARY KEY)`,
		"ours and a foreign one": `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
			CREATE TABLE users (id INTEGER PRIMARY KEY)`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "app.db")
			walDB(t, path, stmts)
			_, err := sqlite.Open(path)
			require.ErrorContains(t, err, "not a stategraph checkpoint database: it holds tables of another program (users)")
			var n int
			require.NoError(t, rawDB(t, path).QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'checkpoints'`).Scan(&n))
			require.Zero(t, n, "no table was added")
		})
	}
}

// A WAL database of ours that an older release migrated (a version not
// recorded yet) is migrated by Open, not only checked.
func TestOpenMigratesAnOlderWALDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	db := rawDB(t, path)
	var latest int
	require.NoError(t, db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&latest))
	_, err = db.Exec(`DELETE FROM schema_migrations WHERE version = ?`, latest) // the last step changes no table
	require.NoError(t, err)

	s, err = sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	var v int
	require.NoError(t, db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v))
	require.Equal(t, latest, v, "the missing version was applied again")

	// Read-only, an older database is refused, not migrated.
	_, err = db.Exec(`DELETE FROM schema_migrations WHERE version = ?`, latest)
	require.NoError(t, err)
	_, err = sqlite.Open(path, sqlite.ReadOnly())
	require.ErrorContains(t, err, "open it once for writing")
}
