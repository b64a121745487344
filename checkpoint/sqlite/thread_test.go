package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestOwnHandleWithoutForeignKeysLeavesNoOrphans: a Saver from New on a handle
// without foreign_keys(1) leaves no orphan writes or blobs behind after
// DeleteThread and Prune.
func TestOwnHandleWithoutForeignKeysLeavesNoOrphans(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nofk.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
	s, err := sqlite.New(db)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	parent := ""
	var ids []string
	for i := range 4 {
		v := string(rune('a' + i))
		parent = put(t, s, "t", parent, map[string]string{"x": v}, map[string]checkpoint.Blob{"x": full(v, "1")}, checkpoint.Metadata{})
		ids = append(ids, parent)
		require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: parent}, "task", []checkpoint.PendingWrite{{Channel: "x", Value: []byte("1")}}))
	}
	count := func(table string) int {
		var n int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table+` WHERE thread_id = 't'`).Scan(&n))
		return n
	}
	require.NoError(t, s.Prune(ctx, "t", 1))
	require.Equal(t, 1, count("checkpoints"))
	require.Equal(t, 1, count("writes"))
	require.Equal(t, 1, count("blobs"))
	require.NoError(t, s.DeleteThread(ctx, "t"))
	for _, table := range []string{"checkpoints", "writes", "blobs"} {
		require.Zero(t, count(table), table)
	}
}
