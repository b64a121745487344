package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestDatabaseOfSchema4IsMigratedAndRead opens a database written by the
// code before migration 5 (testdata/schema4.sql, the dump of what
// testdata/schema4-generate.go wrote; every value in the blobs table):
// Open migrates it to the current version, everything reads as it was stored, and
// the history continues on it with values inline over old blob rows,
// through a copy, a prune and a reopen.
func TestDatabaseOfSchema4IsMigratedAndRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, s, db := openMigrated(t, 4)
	defer s.Close()
	var oldInline int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM checkpoints WHERE inline IS NOT NULL`).Scan(&oldInline))
	require.Zero(t, oldInline, "the old rows are not rewritten")

	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	head, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, fixtureC2, head.Checkpoint.ID)
	require.True(t, at.Add(time.Second).Equal(head.Checkpoint.CreatedAt))
	require.Equal(t, checkpoint.Value{Version: fixtureC2 + ".2d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`)}}, head.Checkpoint.Values["items"])
	require.Equal(t, checkpoint.Value{Version: fixtureC1, Snapshot: []byte(`"x"`)}, head.Checkpoint.Values["name"])
	require.Equal(t, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, RunID: "run-1", Nodes: []string{"b"}, Extra: map[string]any{"user": "ann"}}, head.Metadata)
	require.Equal(t, []checkpoint.PendingWrite{
		{TaskID: "task-c", Index: checkpoint.ErrorIndex, Channel: checkpoint.ErrorChannel, Value: []byte(`{"node":"c","error":"boom"}`)},
		{TaskID: "task-c", Index: 0, Channel: "items", Value: []byte(`["c"]`)},
	}, head.PendingWrites)
	sub, err := s.Get(ctx, checkpoint.Config{ThreadID: "t", Namespace: "sub"})
	require.NoError(t, err)
	require.Equal(t, []byte(`"sub"`), sub.Checkpoint.Values["name"].Snapshot)
	require.NoError(t, s.Verify(ctx, "t"))

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
	var newInline, blobRows int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM checkpoints WHERE inline IS NOT NULL AND id = ?`, c4).Scan(&newInline))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM blobs WHERE version LIKE ? || '%'`, c4).Scan(&blobRows))
	require.Equal(t, 1, newInline, "the new checkpoint's small snapshot is inline")
	require.Equal(t, 1, blobRows, "its delta is a blob row")

	latest, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, c4, latest.Checkpoint.ID)
	require.Equal(t, checkpoint.Value{Version: c4 + ".3d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`), []byte(`["c"]`)}}, latest.Checkpoint.Values["items"])
	require.Equal(t, []byte(`{"nodes":[]}`), latest.Checkpoint.Values["__next__"].Snapshot)
	require.NoError(t, s.Verify(ctx, "t"))

	require.NoError(t, s.CopyThread(ctx, "t", "t2"))
	require.NoError(t, s.Verify(ctx, "t2"))
	copied, err := s.Get(ctx, checkpoint.Config{ThreadID: "t2"})
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, copied.Checkpoint.Values)
	require.NoError(t, s.Prune(ctx, "t", 1))
	pruned, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, pruned.Checkpoint.Values, "the kept checkpoint's chain survives the prune")
	require.NoError(t, s.Verify(ctx, "t"))
	require.NoError(t, s.Close())

	again, err := sqlite.Open(path)
	require.NoError(t, err)
	defer again.Close()
	tup, err := again.Get(ctx, checkpoint.Config{ThreadID: "t2"})
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, tup.Checkpoint.Values)
}
