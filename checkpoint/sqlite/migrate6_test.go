package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestDatabaseOfSchema5IsMigratedAndRead opens a database written by the
// code before migration 6 (testdata/schema5.sql, the dump of what
// testdata/schema5-generate.go wrote; versions stored whole): Open
// migrates it to version 6 without rewriting a row, everything reads as
// it was stored, and the history continues on it with rows whose
// versions are relative to their id, read together with the old ones
// through a walk of the history, a copy, a prune and a reopen.
func TestDatabaseOfSchema5IsMigratedAndRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, s, db := openMigrated(t, 5)
	defer s.Close()
	var relRows int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM checkpoints WHERE crc >> 32 >= 3`).Scan(&relRows))
	require.Zero(t, relRows, "the old rows are not rewritten")

	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	head, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, fixtureC2, head.Checkpoint.ID)
	require.True(t, at.Add(time.Second).Equal(head.Checkpoint.CreatedAt))
	require.Equal(t, map[string]string{"items": fixtureC2 + ".2d", "name": fixtureC1, "__next__": fixtureC2}, head.Checkpoint.Versions)
	require.Equal(t, checkpoint.Value{Version: fixtureC2 + ".2d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`)}}, head.Checkpoint.Values["items"])
	require.Equal(t, checkpoint.Value{Version: fixtureC1, Snapshot: []byte(`"x"`)}, head.Checkpoint.Values["name"])
	require.Equal(t, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, RunID: "run-1", Nodes: []string{"b"}, Extra: map[string]any{"user": "ann"}}, head.Metadata)
	require.Len(t, head.PendingWrites, 2)
	require.NoError(t, s.Verify(ctx, "t"))

	c4 := checkpoint.NewIDAfter(fixtureC3)
	versions := map[string]string{"items": c4 + ".3d", "name": fixtureC1, "__next__": c4, "odd": "=not-an-id"}
	_, err = s.Put(ctx, checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: "t", CheckpointID: fixtureC2},
		Checkpoint: checkpoint.Checkpoint{ID: c4, CreatedAt: at.Add(3 * time.Second), Versions: versions,
			New: map[string]checkpoint.Blob{
				"items":    delta(c4+".3d", fixtureC2+".2d", `["c"]`),
				"__next__": full(c4, `{"nodes":[]}`),
				"odd":      full("=not-an-id", `1`),
			}},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 2},
		ExpectHead: fixtureC2,
	})
	require.NoError(t, err)
	var stored string
	require.NoError(t, db.QueryRow(`SELECT CAST(versions AS TEXT) FROM checkpoints WHERE id = ?`, c4).Scan(&stored))
	require.Equal(t, `{"__next__":"=","items":"=.3d","name":"`+fixtureC1+`","odd":"==not-an-id"}`, stored,
		"the new row's versions are relative to its id")

	latest, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, versions, latest.Checkpoint.Versions)
	require.Equal(t, checkpoint.Value{Version: c4 + ".3d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`), []byte(`["c"]`)}}, latest.Checkpoint.Values["items"])
	require.Equal(t, []byte(`{"nodes":[]}`), latest.Checkpoint.Values["__next__"].Snapshot)
	require.Equal(t, []byte(`1`), latest.Checkpoint.Values["odd"].Snapshot)
	h, err := s.GetHead(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, versions, h.Checkpoint.Versions)
	var ids []string
	for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		ids = append(ids, tup.Checkpoint.ID)
	}
	require.Equal(t, []string{c4, fixtureC2, fixtureC1}, ids, "the walk links the new row to the old ones")
	require.NoError(t, s.Verify(ctx, "t"))

	require.NoError(t, s.CopyThread(ctx, "t", "t2"))
	require.NoError(t, s.Verify(ctx, "t2"))
	copied, err := s.Get(ctx, checkpoint.Config{ThreadID: "t2"})
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, copied.Checkpoint.Values)
	require.Equal(t, versions, copied.Checkpoint.Versions)
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
	require.Equal(t, versions, tup.Checkpoint.Versions)
}
