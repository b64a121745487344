package sqlite

import (
	"context"
	"database/sql"
	"hash/crc32"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// kind1Checksum is the crc of a blob of the kind before blobRowKind.
func kind1Checksum(delta bool, base string, data []byte) int64 {
	head := []byte{0}
	if delta {
		head[0] = 1
	}
	head = append(append(head, base...), 0)
	return blobSumKind | int64(crc32.Update(crc32.Update(0, castagnoli, head), castagnoli, data))
}

// TestRowsWrittenBeforeMigration2StillRead turns a history into rows as
// the versions before migration 2 wrote them (no checkpoint crc, prev or
// nwrites; blob and write checksums of the older kinds): they read as
// before, Verify passes, a history continued on them reads whole, and
// damage to what the older checksums cover is still ErrCorrupt.
func TestRowsWrittenBeforeMigration2StillRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "legacy.db")
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	putOne := func(parent string, versions map[string]string, blobs map[string]checkpoint.Blob) string {
		id := checkpoint.NewID()
		_, err := s.Put(ctx, checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: "t", CheckpointID: parent},
			Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now(), Versions: versions, New: blobs},
			ExpectHead: parent,
		})
		require.NoError(t, err)
		return id
	}
	a := putOne("", map[string]string{"items": "i1", "name": "n1"}, map[string]checkpoint.Blob{
		"items": {Version: "i1", Data: []byte(`[1]`)}, "name": {Version: "n1", Data: []byte(`"x"`)}})
	b := putOne(a, map[string]string{"items": "i2", "name": "n1"}, map[string]checkpoint.Blob{
		"items": {Version: "i2", Data: []byte(`[2]`), Delta: true, Base: "i1"}})
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: b}, "task",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`[3]`)}}))
	before := legacyList(t, s)

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`UPDATE checkpoints SET crc = NULL, prev = NULL, nwrites = NULL`)
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE blobs SET crc = ? WHERE version = 'n1'`, checksum([]byte(`"x"`)))
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE blobs SET crc = ? WHERE version = 'i1'`, kind1Checksum(false, "", []byte(`[1]`)))
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE blobs SET crc = ? WHERE version = 'i2'`, kind1Checksum(true, "i1", []byte(`[2]`)))
	require.NoError(t, err)
	_, err = db.Exec(`UPDATE writes SET crc = ?`, checksum([]byte(`[3]`)))
	require.NoError(t, err)

	require.Equal(t, before, legacyList(t, s), "legacy rows read as they did")
	require.NoError(t, s.Verify(ctx, "t"))

	// A legacy checkpoint takes more writes, and the history continues.
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: b}, "task2",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "name", Value: []byte(`"y"`)}}))
	c := putOne(b, map[string]string{"items": "i2", "name": "n2"}, map[string]checkpoint.Blob{"name": {Version: "n2", Data: []byte(`"z"`)}})
	got := legacyList(t, s)
	require.Len(t, got, 3)
	require.Equal(t, c, got[0].Checkpoint.ID)
	require.Len(t, got[1].PendingWrites, 2)
	require.NoError(t, s.Verify(ctx, "t"))

	// What the older checksums cover is still checked.
	_, err = db.Exec(`UPDATE blobs SET base = '' WHERE version = 'i2'`)
	require.NoError(t, err)
	_, err = s.Get(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: b})
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorIs(t, s.Verify(ctx, "t"), checkpoint.ErrCorrupt)
}

func legacyList(t *testing.T, s *Saver) []*checkpoint.Tuple {
	t.Helper()
	var out []*checkpoint.Tuple
	for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		out = append(out, tup)
	}
	return out
}
