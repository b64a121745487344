package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/internal/sqlitetest"
)

// The fixture testdata/schema3.sql is the dump of a database written by the release before
// migration 4 (main at 6f9116e), with testdata/schema3-generate.go, which
// says how to write it again.
const (
	fixtureC1 = "019ada00-0000-7000-8000-000000000001"
	fixtureC2 = "019ada00-0000-7000-8000-000000000002"
	fixtureC3 = "019ada00-0000-7000-8000-000000000003"
)

// openMigrated makes the database of schema version from from its dump,
// testdata/schema<from>.sql (`sqlite3 schema<from>.db .dump` of the file
// its generator wrote), in a temporary file; checks that a read-only Open
// refuses it and that Open migrates it to version 6; and returns its
// path, the Saver (the caller closes it) and a raw handle on the file.
func openMigrated(t *testing.T, from int) (string, *sqlite.Saver, *sql.DB) {
	t.Helper()
	name := fmt.Sprintf("schema%d", from)
	path := sqlitetest.FromDump(t, filepath.Join("testdata", name+".sql"), name+".db")

	_, err := sqlite.Open(path, sqlite.ReadOnly())
	require.ErrorContains(t, err, fmt.Sprintf("schema version %d", from), "read-only, an older database is refused, not migrated")

	s, err := sqlite.Open(path)
	require.NoError(t, err)
	db := rawDB(t, path)
	var version int
	require.NoError(t, db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&version))
	require.Equal(t, 6, version)
	return path, s, db
}

// TestDatabaseOfSchema3IsMigratedAndRead opens a database the previous
// release wrote (schema version 3, blobs keyed by channel before version):
// Open migrates it to version 4, every checkpoint, value, delta chain,
// metadata and pending write reads as that release stored it, Verify
// passes, and the history continues on it.
func TestDatabaseOfSchema3IsMigratedAndRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, s, db := openMigrated(t, 3)
	defer s.Close()
	var ddl string
	require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'blobs'`).Scan(&ddl))
	require.Contains(t, ddl, "PRIMARY KEY (thread_id, ns, version, channel)")
	var tables int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'blobs%'`).Scan(&tables))
	require.Equal(t, 1, tables, "the old blobs table is gone, the new one renamed")

	var got []*checkpoint.Tuple
	for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		got = append(got, tup)
	}
	require.Len(t, got, 2)
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

	head := got[0]
	require.Equal(t, fixtureC2, head.Checkpoint.ID)
	require.True(t, at.Add(time.Second).Equal(head.Checkpoint.CreatedAt))
	require.Equal(t, &checkpoint.Config{ThreadID: "t", CheckpointID: fixtureC1}, head.Parent)
	require.Equal(t, map[string]string{"items": fixtureC2 + ".2d", "name": fixtureC1, "__next__": fixtureC2}, head.Checkpoint.Versions)
	require.Equal(t, checkpoint.Value{Version: fixtureC2 + ".2d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`)}}, head.Checkpoint.Values["items"])
	require.Equal(t, checkpoint.Value{Version: fixtureC1, Snapshot: []byte(`"x"`)}, head.Checkpoint.Values["name"])
	require.Equal(t, []byte(`{"nodes":["c"]}`), head.Checkpoint.Values["__next__"].Snapshot)
	require.Equal(t, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, RunID: "run-1", Nodes: []string{"b"}, Extra: map[string]any{"user": "ann"}}, head.Metadata)
	require.Equal(t, []checkpoint.PendingWrite{
		{TaskID: "task-c", Index: checkpoint.ErrorIndex, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"c","error":"boom"}`)},
		{TaskID: "task-c", Index: 0, Channel: "items", Value: []byte(`["c"]`)},
	}, head.PendingWrites)

	first := got[1]
	require.Equal(t, fixtureC1, first.Checkpoint.ID)
	require.Nil(t, first.Parent)
	require.Equal(t, checkpoint.Value{Version: fixtureC1 + ".1s", Snapshot: []byte(`["a"]`)}, first.Checkpoint.Values["items"])
	require.Equal(t, []byte(`{"nodes":["b"]}`), first.Checkpoint.Values["__next__"].Snapshot)

	sub, err := s.Get(ctx, checkpoint.Config{ThreadID: "t", Namespace: "sub"})
	require.NoError(t, err)
	require.Equal(t, fixtureC3, sub.Checkpoint.ID)
	require.Equal(t, map[string]string{"": fixtureC2}, sub.Metadata.Parents)
	require.Equal(t, []byte(`"sub"`), sub.Checkpoint.Values["name"].Snapshot)

	require.NoError(t, s.Verify(ctx, "t"))

	// The history continues on the migrated rows: a delta on the old
	// chain, then a copy and a prune that read the old rows.
	c4 := checkpoint.NewIDAfter(fixtureC3)
	_, err = s.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t", CheckpointID: fixtureC2},
		Checkpoint: checkpoint.Checkpoint{ID: c4, CreatedAt: at.Add(3 * time.Second),
			Versions: map[string]string{"items": c4 + ".3d", "name": fixtureC1, "__next__": c4},
			New: map[string]checkpoint.Blob{
				"items":    delta(c4+".3d", fixtureC2+".2d", `["c"]`),
				"__next__": full(c4, `{"nodes":[]}`),
			}},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 2},
		ExpectHead: fixtureC2,
	})
	require.NoError(t, err)
	latest, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, c4, latest.Checkpoint.ID)
	require.Equal(t, checkpoint.Value{Version: c4 + ".3d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`), []byte(`["c"]`)}}, latest.Checkpoint.Values["items"])
	require.NoError(t, s.Verify(ctx, "t"))

	require.NoError(t, s.CopyThread(ctx, "t", "t2"))
	require.NoError(t, s.Verify(ctx, "t2"))
	require.NoError(t, s.Prune(ctx, "t", 1))
	pruned, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, pruned.Checkpoint.Values, "the kept checkpoint's chain survives the prune")
	require.NoError(t, s.Verify(ctx, "t"))
	require.NoError(t, s.Close())

	// Opened again, nothing is migrated twice and it still reads.
	again, err := sqlite.Open(path)
	require.NoError(t, err)
	defer again.Close()
	tup, err := again.Get(ctx, checkpoint.Config{ThreadID: "t2", CheckpointID: fixtureC1})
	require.NoError(t, err)
	require.Equal(t, []byte(`"x"`), tup.Checkpoint.Values["name"].Snapshot)
}
