package sqlite_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
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

// damagedHistory stores three checkpoints on thread "t" of a fresh file:
// a snapshot and two deltas of "items", a "name" written once, and a
// pending write on the head. It returns the saver, the file and the ids.
func damagedHistory(t *testing.T) (*sqlite.Saver, string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	a := put(t, s, "t", "", map[string]string{"items": "i1", "name": "n1"},
		map[string]checkpoint.Blob{"items": full("i1", `[1]`), "name": full("n1", `"x"`)}, checkpoint.Metadata{Source: checkpoint.SourceInput})
	b := put(t, s, "t", a, map[string]string{"items": "i2", "name": "n1"},
		map[string]checkpoint.Blob{"items": delta("i2", "i1", `[2]`)}, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1})
	head := put(t, s, "t", b, map[string]string{"items": "i3", "name": "n1"},
		map[string]checkpoint.Blob{"items": delta("i3", "i2", `[3]`)}, checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 2})
	require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: "t", CheckpointID: head}, "task",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`[4]`)}, {Index: -1, Channel: checkpoint.ErrorChannel, Value: []byte(`"e"`)}}))
	return s, path, []string{a, b, head}
}

// readErrors returns the errors of Get latest, Get by id and List.
func readErrors(s checkpoint.Saver, id string) map[string]error {
	ctx := context.Background()
	out := map[string]error{}
	_, out["get latest"] = s.Get(ctx, checkpoint.Config{ThreadID: "t"})
	_, out["get by id"] = s.Get(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: id})
	for _, err := range s.List(ctx, checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{}) {
		if err != nil {
			out["list"] = err
			break
		}
	}
	return out
}

func requireCorruptNaming(t *testing.T, errs map[string]error, id string) {
	t.Helper()
	for what, err := range errs {
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
		require.Contains(t, err.Error(), `"t"`, "%s: names the thread", what)
		require.Contains(t, err.Error(), id, "%s: names the checkpoint", what)
	}
}

// TestDamagedColumnsAreErrCorrupt damages one column of one row at a
// time, in ways corrupt_test.go does not: every read of the damaged
// checkpoint is ErrCorrupt naming the thread and the checkpoint.
func TestDamagedColumnsAreErrCorrupt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, damage string // ? is the head's id
	}{
		{"blob data truncated", `UPDATE blobs SET data = substr(data, 1, length(data) - 1) WHERE version = 'i3'`},
		{"blob data one byte flipped", `UPDATE blobs SET data = CAST(replace(CAST(data AS TEXT), '3', '4') AS BLOB) WHERE version = 'i3'`},
		{"blob data NULL", `UPDATE blobs SET data = NULL WHERE version = 'n1'`},
		{"blob checksum changed", `UPDATE blobs SET crc = crc + 1 WHERE version = 'i2'`},
		{"write value truncated", `UPDATE writes SET value = substr(value, 1, 1) WHERE idx = 0`},
		{"write value NULL", `UPDATE writes SET value = NULL WHERE idx = 0`},
		{"write index not a number", `UPDATE writes SET idx = 'zero' WHERE idx = 0`},
		{"versions null", `UPDATE checkpoints SET versions = 'null' WHERE id = ?`},
		{"versions truncated", `UPDATE checkpoints SET versions = substr(versions, 1, length(versions) - 2) WHERE id = ?`},
		{"metadata truncated", `UPDATE checkpoints SET metadata = substr(metadata, 1, length(metadata) - 2) WHERE id = ?`},
		{"metadata empty", `UPDATE checkpoints SET metadata = '' WHERE id = ?`},
		{"created_at not a number", `UPDATE checkpoints SET created_at = 'yesterday' WHERE id = ?`},
		{"snapshot flagged as a delta", `UPDATE blobs SET delta = 1 WHERE version = 'i1'`},
		{"delta re-based", `UPDATE blobs SET base = 'i1' WHERE version = 'i3'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, path, ids := damagedHistory(t)
			head := ids[2]
			var args []any
			if strings.Contains(c.damage, "?") {
				args = append(args, head)
			}
			res, err := rawDB(t, path).Exec(c.damage, args...)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Positive(t, n, "the damage hit a row")
			requireCorruptNaming(t, readErrors(s, head), head)
		})
	}
}

// TestFlippedByteInFileIsErrCorrupt flips one byte of a blob in the database file
// itself (not through SQL): the checksum catches it.
func TestFlippedByteInFileIsErrCorrupt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "flip.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	payload := make([]byte, 64<<10)
	_, err = rand.Read(payload)
	require.NoError(t, err)
	id := put(t, s, "t", "", map[string]string{"big": "b1", "small": "s1"},
		map[string]checkpoint.Blob{"big": {Version: "b1", Data: payload}, "small": full("s1", `"s"`)}, checkpoint.Metadata{})
	require.NoError(t, s.Close()) // the last connection checkpoints the WAL into the file

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	off := bytes.Index(raw, payload[1000:1064])
	require.GreaterOrEqual(t, off, 0, "the payload is in the file")
	raw[off+10] ^= 0x40
	require.NoError(t, os.WriteFile(path, raw, 0o600))

	s, err = sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()
	requireCorruptNaming(t, readErrors(s, id), id)
}

// TestTruncatedFileIsErrCorrupt cuts the database file short: opening it or
// reading the thread fails, and the failure is ErrCorrupt.
func TestTruncatedFileIsErrCorrupt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trunc.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	parent := ""
	for i := range 40 {
		payload := make([]byte, 8<<10)
		_, err = rand.Read(payload)
		require.NoError(t, err)
		v := string(rune('a'+i%26)) + string(rune('a'+i/26))
		parent = put(t, s, "t", parent, map[string]string{"big": v}, map[string]checkpoint.Blob{"big": {Version: v, Data: payload}}, checkpoint.Metadata{Step: i})
	}
	require.NoError(t, s.Close())
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, info.Size()/2))

	s, err = sqlite.Open(path)
	if err != nil {
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, "open")
		return
	}
	defer s.Close()
	for what, err := range readErrors(s, parent) {
		require.Error(t, err, what)
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, what)
	}
}
