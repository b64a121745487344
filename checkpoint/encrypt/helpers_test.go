package encrypt_test

import (
	"context"
	"database/sql"
	"hash/crc32"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// putOne stores a first checkpoint of thread with one blob per channel
// (each at version "v1") and returns its id.
func putOne(t *testing.T, s checkpoint.Saver, thread string, values map[string]string) string {
	t.Helper()
	id := checkpoint.NewID()
	versions := map[string]string{}
	blobs := map[string]checkpoint.Blob{}
	for ch, v := range values {
		versions[ch] = "v1"
		blobs[ch] = checkpoint.Blob{Version: "v1", Data: []byte(v)}
	}
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now().UTC(), Versions: versions, New: blobs},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, Extra: map[string]any{"user": "ada"}},
	})
	require.NoError(t, err)
	return id
}

// newThread returns a thread id no other test uses.
func newThread() string { return "enc-" + uuid.NewString() }

// get reads the latest checkpoint of thread.
func get(s checkpoint.Saver, thread string) (*checkpoint.Tuple, error) {
	return s.Get(context.Background(), checkpoint.Config{ThreadID: thread})
}

// castagnoli is the checksum SQLite's saver still accepts from its first
// version: the CRC-32C of a value alone. Anyone who can write the
// database can compute it, so the tests that move rows forge it, as an
// attacker would, and the wrapper is what must notice.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) int64 { return int64(crc32.Checksum(b, castagnoli)) }

// openDB opens the SQLite file at path for raw SQL.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// blobData reads a blob row's data.
func blobData(t *testing.T, db *sql.DB, thread, channel string) []byte {
	t.Helper()
	var data []byte
	require.NoError(t, db.QueryRow(`SELECT data FROM blobs WHERE thread_id = ? AND channel = ?`, thread, channel).Scan(&data))
	return data
}

// setBlob overwrites a blob row's data, with a checksum that matches.
func setBlob(t *testing.T, db *sql.DB, thread, channel string, data []byte) {
	t.Helper()
	res, err := db.Exec(`UPDATE blobs SET data = ?, crc = ? WHERE thread_id = ? AND channel = ?`, data, crc(data), thread, channel)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// dropRowChecks makes the checkpoint rows of thread look as rows written
// before the SQLite saver checked them: no checksum, no prev, no write
// count, and versions written out whole (a row's versions are stored
// relative to its id only since it has a checksum kind that says so). The
// saver reads such rows unchecked, so a test reaches the wrapper's own
// checks.
func dropRowChecks(t *testing.T, db *sql.DB, thread string) {
	t.Helper()
	_, err := db.Exec(`UPDATE checkpoints SET versions = replace(versions, '":"=', '":"' || id), crc = NULL, prev = NULL, nwrites = NULL WHERE thread_id = ?`, thread)
	require.NoError(t, err)
}
