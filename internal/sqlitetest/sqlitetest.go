// Package sqlitetest makes SQLite database files for tests from SQL
// dumps committed as text (what `sqlite3 FILE .dump` prints), so a fixture
// database is reviewable in a diff and no binary file is tracked.
package sqlitetest

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the driver the savers use
)

// FromDump creates a database file named name in a fresh temporary
// directory from the SQL dump in the file dump, and returns its path.
func FromDump(t testing.TB, dump, name string) string {
	t.Helper()
	script, err := os.ReadFile(dump)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name)
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(string(script))
	require.NoError(t, err, "load the dump %s", dump)
	return path
}
