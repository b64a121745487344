package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// putOwned stores a checkpoint with id on (thread, ""), as the runtime
// does: its new versions are named after it.
func putOwned(t *testing.T, s checkpoint.Saver, id, parent string, versions map[string]string, blobs map[string]checkpoint.Blob) {
	t.Helper()
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: "t", CheckpointID: parent},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now(), Versions: versions, New: blobs},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop},
		ExpectHead: parent,
	})
	require.NoError(t, err)
}

// ownedHistory stores three checkpoints whose small values belong to
// them (one larger than the inline limit) and returns their ids.
func ownedHistory(t *testing.T, s checkpoint.Saver) (c1, c2, c3 string) {
	c1 = checkpoint.NewID()
	c2 = checkpoint.NewIDAfter(c1)
	c3 = checkpoint.NewIDAfter(c2)
	big := `"` + strings.Repeat("b", 3000) + `"`
	putOwned(t, s, c1, "", map[string]string{"name": c1, "items": c1 + ".1s", "big": c1},
		map[string]checkpoint.Blob{"name": full(c1, `"x"`), "items": full(c1+".1s", `["a"]`), "big": full(c1, big)})
	putOwned(t, s, c2, c1, map[string]string{"name": c1, "items": c2 + ".2d", "big": c1},
		map[string]checkpoint.Blob{"items": delta(c2+".2d", c1+".1s", `["b"]`)})
	putOwned(t, s, c3, c2, map[string]string{"name": c1, "items": c3 + ".3d", "big": c1},
		map[string]checkpoint.Blob{"items": delta(c3+".3d", c2+".2d", `["c"]`)})
	return c1, c2, c3
}

// TestSmallValuesAreStoredInTheirCheckpointsRow: a value whose version
// belongs to its checkpoint, that is small and not a delta is stored in
// the checkpoint's row, not as a blob row; a large one and a delta are
// blob rows; and all read back from later checkpoints, through a delta
// chain whose snapshot is inline.
func TestSmallValuesAreStoredInTheirCheckpointsRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "inline.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	c1, _, c3 := ownedHistory(t, s)

	db := rawDB(t, path)
	var blobRows, inlineRows int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM blobs`).Scan(&blobRows))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM checkpoints WHERE inline IS NOT NULL`).Scan(&inlineRows))
	require.Equal(t, 3, blobRows, "the large value and the two deltas are blob rows")
	require.Equal(t, 1, inlineRows, "the first checkpoint's small snapshots are inline")

	tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, c3, tup.Checkpoint.ID)
	require.Equal(t, checkpoint.Value{Version: c3 + ".3d", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`), []byte(`["c"]`)}}, tup.Checkpoint.Values["items"])
	require.Equal(t, checkpoint.Value{Version: c1, Snapshot: []byte(`"x"`)}, tup.Checkpoint.Values["name"])
	require.Len(t, tup.Checkpoint.Values["big"].Snapshot, 3002)
	require.NoError(t, s.Verify(context.Background(), "t"))
}

// TestDamagedInlineValuesAreErrCorrupt damages the inline column of one
// row: a read of that checkpoint, and of a later one that needs a value
// from it, is ErrCorrupt, and so is Verify.
func TestDamagedInlineValuesAreErrCorrupt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, damage string
		row          int // the checkpoint damaged
	}{
		{"one byte changed", `UPDATE checkpoints SET inline = CAST(replace(CAST(inline AS TEXT), 'x', 'y') AS BLOB) WHERE id = ?`, 0},
		{"truncated", `UPDATE checkpoints SET inline = substr(inline, 1, length(inline) - 1) WHERE id = ?`, 0},
		{"removed", `UPDATE checkpoints SET inline = NULL WHERE id = ?`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "c.db")
			s, err := sqlite.Open(path)
			require.NoError(t, err)
			defer s.Close()
			ids := make([]string, 3)
			ids[0], ids[1], ids[2] = ownedHistory(t, s)
			_, err = rawDB(t, path).Exec(c.damage, ids[c.row])
			require.NoError(t, err)

			_, err = s.Get(ctx, checkpoint.Config{ThreadID: "t"})
			require.ErrorIs(t, err, checkpoint.ErrCorrupt, "the latest needs the damaged row's values")
			require.ErrorContains(t, err, `"t"`)
			require.ErrorIs(t, s.Verify(ctx, "t"), checkpoint.ErrCorrupt)
		})
	}
}

// TestPruneKeepsTheInlineValuesTheKeptCheckpointsRead: the values a
// kept checkpoint reads from pruned rows (the unchanged "name", the
// snapshot and deltas under its delta) survive the prune as blob rows.
func TestPruneKeepsTheInlineValuesTheKeptCheckpointsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "prune.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	_, _, c3 := ownedHistory(t, s)
	before, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)

	require.NoError(t, s.Prune(ctx, "t", 1))
	after, err := s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	require.Equal(t, c3, after.Checkpoint.ID)
	require.Equal(t, before.Checkpoint.Values, after.Checkpoint.Values)
	require.NoError(t, s.Verify(ctx, "t"))
	var blobRows int
	require.NoError(t, rawDB(t, path).QueryRow(`SELECT count(*) FROM blobs`).Scan(&blobRows))
	require.Equal(t, 5, blobRows, "name and the snapshot of items moved; big and the deltas stay")
}

// TestValuesBeyondTheRowsRoomAreBlobRows: small values that do not all
// fit in the row go inline in channel order while they fit, the rest as
// blob rows, and all read back.
func TestValuesBeyondTheRowsRoomAreBlobRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "room.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	id := checkpoint.NewID()
	versions := map[string]string{}
	blobs := map[string]checkpoint.Blob{}
	for _, ch := range []string{"a", "b", "c", "d", "e"} {
		versions[ch] = id + "." + ch
		blobs[ch] = full(id+"."+ch, `"`+strings.Repeat(ch, 300)+`"`)
	}
	putOwned(t, s, id, "", versions, blobs)

	var rows []string
	q, err := rawDB(t, path).Query(`SELECT channel FROM blobs ORDER BY channel`)
	require.NoError(t, err)
	for q.Next() {
		var ch string
		require.NoError(t, q.Scan(&ch))
		rows = append(rows, ch)
	}
	require.NoError(t, q.Err())
	require.NotEmpty(t, rows, "not all fit in the row")
	require.Less(t, len(rows), 5, "the first ones are inline")
	require.Equal(t, "e", rows[len(rows)-1], "inline in channel order")

	tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	for ch, b := range blobs {
		require.Equal(t, b.Data, tup.Checkpoint.Values[ch].Snapshot, "channel %q", ch)
	}
	require.NoError(t, s.Verify(context.Background(), "t"))
}
