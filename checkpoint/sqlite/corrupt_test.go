package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// TestCorruptRowsAreErrCorrupt damages one row at a time and checks that
// Get and List report checkpoint.ErrCorrupt naming the thread and the
// checkpoint, and never panic.
func TestCorruptRowsAreErrCorrupt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		damage string // SQL run against the file; ? is the head's id
	}{
		{"blob data garbage", `UPDATE blobs SET data = x'deadbeef' WHERE version = 'i1'`},
		{"blob data wrong type", `UPDATE blobs SET data = 42 WHERE version = 'n1'`},
		{"snapshot of a delta chain deleted", `DELETE FROM blobs WHERE version = 'i1'`},
		{"head blob deleted", `DELETE FROM blobs WHERE version = 'i3'`},
		{"delta flag garbage", `UPDATE blobs SET delta = 7 WHERE version = 'i2'`},
		{"delta chain loops", `UPDATE blobs SET delta = 1, base = version WHERE version = 'i1'`},
		{"versions not json", `UPDATE checkpoints SET versions = 'garbage' WHERE id = ?`},
		{"versions not an object", `UPDATE checkpoints SET versions = '[1,2]' WHERE id = ?`},
		{"versions not strings", `UPDATE checkpoints SET versions = '{"items":3}' WHERE id = ?`},
		{"metadata not json", `UPDATE checkpoints SET metadata = x'00ff' WHERE id = ?`},
		{"metadata wrong types", `UPDATE checkpoints SET metadata = '{"step":"three"}' WHERE id = ?`},
		{"write value garbage", `UPDATE writes SET value = x'0102' WHERE checkpoint_id = ?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.db")
			s, err := sqlite.Open(path)
			require.NoError(t, err)
			defer s.Close()
			ctx := context.Background()
			a := put(t, s, "t", "", map[string]string{"items": "i1", "name": "n1"},
				map[string]checkpoint.Blob{"items": full("i1", `[1]`), "name": full("n1", `"x"`)}, checkpoint.Metadata{})
			b := put(t, s, "t", a, map[string]string{"items": "i2", "name": "n1"},
				map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)}, checkpoint.Metadata{Step: 1})
			head := put(t, s, "t", b, map[string]string{"items": "i3", "name": "n1"},
				map[string]checkpoint.Blob{"items": delta("i3", "i2", `[3]`)}, checkpoint.Metadata{Step: 2})
			require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: head}, "task",
				[]checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`[4]`)}}))

			db := rawDB(t, path)
			args := []any{}
			if containsPlaceholder(c.damage) {
				args = append(args, head)
			}
			res, err := db.Exec(c.damage, args...)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Positive(t, n, "the damage hit a row")

			requireCorrupt := func(err error, what string) {
				t.Helper()
				require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
				require.Contains(t, err.Error(), `"t"`, "%s: names the thread", what)
				require.Contains(t, err.Error(), head, "%s: names the checkpoint", what)
			}
			_, err = s.Get(ctx, checkpoint.Config{ThreadID: "t"})
			requireCorrupt(err, "get latest")
			_, err = s.Get(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: head})
			requireCorrupt(err, "get by id")
			var listErr error
			for tup, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
				if err != nil {
					require.Nil(t, tup)
					listErr = err
				}
			}
			requireCorrupt(listErr, "list")
		})
	}
}

func containsPlaceholder(q string) bool {
	for _, r := range q {
		if r == '?' {
			return true
		}
	}
	return false
}
