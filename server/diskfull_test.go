package server_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestRunFailingOnAFullDiskReleasesItsLease: a run that fails because its
// database is full (a size-limited SQLite: max_page_count at its size, and
// the lease's release failing as on a full disk) gives its lease up on the
// way out, so a resume right after the database may grow again runs, not
// one refused as busy until the lease expires.
func TestRunFailingOnAFullDiskReleasesItsLease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "checkpoints.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	require.NoError(t, err)
	db.SetMaxOpenConns(1) // one connection: the pragmas below are its
	t.Cleanup(func() { db.Close() })
	saver, err := sqlite.New(db)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	h := newHarnessOn(t, saver)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	out := h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "small"}}, 200)
	require.NotContains(t, out, "__error__")

	// The disk is full: the database cannot grow, and the lease's row
	// cannot be deleted (a full disk refuses the journal's write).
	var pages int
	require.NoError(t, db.QueryRow(`PRAGMA page_count`).Scan(&pages))
	_, err = db.Exec(`PRAGMA max_page_count = ` + itoa(pages))
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TRIGGER disk_full BEFORE DELETE ON leases BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END`)
	require.NoError(t, err)
	out = h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": strings.Repeat("x", 256<<10)}}, 200)
	require.Contains(t, out, "__error__", "the run fails: the database is full")
	assert.Contains(t, out["__error__"].(map[string]any)["message"], "full")

	// The disk grows; the next run goes at once.
	_, err = db.Exec(`PRAGMA max_page_count = 1073741823`)
	require.NoError(t, err)
	_, err = db.Exec(`DROP TRIGGER disk_full`)
	require.NoError(t, err)
	out = h.json("POST", "/threads/t/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "after"}}, 200)
	require.NotContains(t, out, "__error__", "the failed run's lease does not hold the thread")
	assert.Equal(t, []any{"echo: small", "echo: after"}, out["replies"])
}
