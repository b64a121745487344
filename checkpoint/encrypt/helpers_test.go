package encrypt_test

import (
	"context"
	"database/sql"
	"hash/crc32"
	"iter"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
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

// tamperedSaver hands out what its saver stores, with the checkpoint
// *target names (once it is set) changed by tamper: a backend with no
// checks of its own, whose rows someone with write access changed in
// clear. The wrapper's seal is what must notice.
type tamperedSaver struct {
	checkpoint.Saver
	target *string
	tamper func(*checkpoint.Tuple)
}

// tampered returns a memory saver whose reads of *target tamper changes.
func tampered(target *string, tamper func(*checkpoint.Tuple)) tamperedSaver {
	return tamperedSaver{Saver: memory.New(), target: target, tamper: tamper}
}

// apply tampers with tup if it is the target.
func (s tamperedSaver) apply(tup *checkpoint.Tuple) {
	if tup.Checkpoint.ID == *s.target {
		s.tamper(tup)
	}
}

func (s tamperedSaver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	tup, err := s.Saver.Get(ctx, cfg)
	if err == nil {
		s.apply(tup)
	}
	return tup, err
}

func (s tamperedSaver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	tup, err := s.Saver.(checkpoint.HeadGetter).GetHead(ctx, cfg)
	if err == nil {
		s.apply(tup)
	}
	return tup, err
}

func (s tamperedSaver) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return func(yield func(*checkpoint.Tuple, error) bool) {
		for tup, err := range s.Saver.List(ctx, cfg, opts) {
			if err == nil {
				s.apply(tup)
			}
			if !yield(tup, err) {
				return
			}
		}
	}
}

// sealTampers are changes to what stays in clear beside the ciphertexts:
// a checkpoint's metadata (user metadata, step, source), a channel's
// version (a rollback to a version it really had) and its parent link.
var sealTampers = []struct {
	name   string
	tamper func(*checkpoint.Tuple)
}{
	{"user metadata", func(t *checkpoint.Tuple) { t.Metadata.Extra["user"] = "mallory" }},
	{"step", func(t *checkpoint.Tuple) { t.Metadata.Step = 7 }},
	{"source", func(t *checkpoint.Tuple) { t.Metadata.Source = checkpoint.SourceInput }},
	{"versions", func(t *checkpoint.Tuple) { t.Checkpoint.Versions["x"] = "v1" }},
	{"parent", func(t *checkpoint.Tuple) { t.Parent = nil }},
}
