package encrypt_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// encryptedSQLite returns a wrapped SQLite saver, the raw saver beneath
// it and a raw SQL handle on its file.
func encryptedSQLite(t *testing.T, ring *encrypt.Keyring) (checkpoint.Saver, *sqlite.Saver, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cp.db")
	raw := openSQLite(t, path)
	return encrypt.Wrap(raw, ring), raw, openDB(t, path)
}

// requireEncError checks that err is an *encrypt.Error for thread and
// channel with the given reason, and that it is ErrCorrupt to the runtime.
func requireEncError(t *testing.T, err error, reason error, thread, channel string) *encrypt.Error {
	t.Helper()
	require.ErrorIs(t, err, reason)
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	var ee *encrypt.Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, thread, ee.Thread)
	assert.Equal(t, channel, ee.Channel)
	assert.Contains(t, err.Error(), thread)
	if channel != "" {
		assert.Contains(t, err.Error(), channel)
	}
	return ee
}

func TestStoredBytesHoldNoPlaintext(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	thread := newThread()
	id := putOne(t, s, thread, map[string]string{"secret": "the launch code is 0000"})
	require.NoError(t, s.PutWrites(context.Background(), checkpoint.Config{ThreadID: thread, CheckpointID: id}, "task-1",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "secret", Value: []byte("the launch code is 1111")}}))

	var blobs, writes []byte
	require.NoError(t, db.QueryRow(`SELECT group_concat(data, '') FROM blobs WHERE thread_id = ?`, thread).Scan(&blobs))
	require.NoError(t, db.QueryRow(`SELECT group_concat(value, '') FROM writes WHERE thread_id = ?`, thread).Scan(&writes))
	assert.NotContains(t, string(blobs), "launch code")
	assert.NotContains(t, string(writes), "launch code")

	tup, err := get(s, thread)
	require.NoError(t, err)
	assert.Equal(t, "the launch code is 0000", string(tup.Checkpoint.Values["secret"].Snapshot))
	assert.Equal(t, "the launch code is 1111", string(tup.PendingWrites[0].Value))
	assert.NotContains(t, tup.Checkpoint.Versions, encrypt.SealChannel, "the seal is the wrapper's, never the caller's")
	assert.NotContains(t, tup.Checkpoint.Values, encrypt.SealChannel)
}

// A blob row's ciphertext moved into the same channel of another thread
// (its checksum forged) does not decrypt there: each fails naming its
// own thread and channel.
func TestBlobSwappedBetweenThreadsFails(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	a, b := newThread(), newThread()
	putOne(t, s, a, map[string]string{"balance": "100"})
	putOne(t, s, b, map[string]string{"balance": "1000000"})
	da, dbb := blobData(t, db, a, "balance"), blobData(t, db, b, "balance")
	setBlob(t, db, a, "balance", dbb)
	setBlob(t, db, b, "balance", da)

	for _, thread := range []string{a, b} {
		_, err := get(s, thread)
		ee := requireEncError(t, err, encrypt.ErrUnauthentic, thread, "balance")
		assert.Equal(t, "blob", ee.What)
	}
}

// Within one thread, a value of one channel moved into another channel
// fails too: the channel is part of the identity.
func TestBlobSwappedBetweenChannelsFails(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	thread := newThread()
	putOne(t, s, thread, map[string]string{"role": "user", "name": "admin"})
	setBlob(t, db, thread, "role", blobData(t, db, thread, "name"))
	_, err := get(s, thread)
	requireEncError(t, err, encrypt.ErrUnauthentic, thread, "role")
}

// An older version of a channel put back in place of the newer one (a
// rollback of one value) fails: its envelope carries its own version.
func TestBlobRolledBackToOlderVersionFails(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	thread := newThread()
	first := putOne(t, s, thread, map[string]string{"approved": "false"})
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: thread, CheckpointID: first},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), Versions: map[string]string{"approved": "v2"},
			New: map[string]checkpoint.Blob{"approved": {Version: "v2", Data: []byte("true")}}},
		ExpectHead: first,
	})
	require.NoError(t, err)
	var old []byte
	require.NoError(t, db.QueryRow(`SELECT data FROM blobs WHERE thread_id = ? AND version = 'v1'`, thread).Scan(&old))
	_, err = db.Exec(`UPDATE blobs SET data = ?, crc = ? WHERE thread_id = ? AND version = 'v2'`, old, crc(old), thread)
	require.NoError(t, err)

	_, err = get(s, thread)
	requireEncError(t, err, encrypt.ErrChain, thread, "approved")
}

// Pending writes are bound to their checkpoint, task and index: two
// writes swapped between tasks fail, naming the task and index.
func TestWritesSwappedBetweenTasksFail(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	thread := newThread()
	id := putOne(t, s, thread, map[string]string{"x": "0"})
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
	ctx := context.Background()
	require.NoError(t, s.PutWrites(ctx, cfg, "task-a", []checkpoint.PendingWrite{{Index: 0, Channel: "x", Value: []byte("1")}}))
	require.NoError(t, s.PutWrites(ctx, cfg, "task-b", []checkpoint.PendingWrite{{Index: 0, Channel: "x", Value: []byte("2")}}))
	var va, vb []byte
	require.NoError(t, db.QueryRow(`SELECT value FROM writes WHERE thread_id = ? AND task_id = 'task-a'`, thread).Scan(&va))
	require.NoError(t, db.QueryRow(`SELECT value FROM writes WHERE thread_id = ? AND task_id = 'task-b'`, thread).Scan(&vb))
	for task, v := range map[string][]byte{"task-a": vb, "task-b": va} {
		_, err := db.Exec(`UPDATE writes SET value = ?, crc = ? WHERE thread_id = ? AND task_id = ?`, v, crc(v), thread, task)
		require.NoError(t, err)
	}

	_, err := get(s, thread)
	ee := requireEncError(t, err, encrypt.ErrUnauthentic, thread, "x")
	assert.Equal(t, "pending write", ee.What)
	assert.Equal(t, "task-a", ee.Task)
	assert.Contains(t, err.Error(), `task "task-a"`)
}

// Rows written without the wrapper are refused, never read as data: a
// whole plaintext checkpoint (no seal) and one plaintext value slipped
// into an encrypted checkpoint.
func TestPlaintextRowsFail(t *testing.T) {
	t.Parallel()
	s, raw, db := encryptedSQLite(t, newRing(t))

	clear := newThread()
	id := putOne(t, raw, clear, map[string]string{"x": "plain"})
	_, err := get(s, clear)
	ee := requireEncError(t, err, encrypt.ErrPlaintext, clear, "")
	assert.Equal(t, id, ee.Checkpoint)
	assert.Equal(t, "seal", ee.What)
	for _, err := range s.List(context.Background(), checkpoint.Config{ThreadID: clear}, checkpoint.ListOptions{}) {
		require.ErrorIs(t, err, encrypt.ErrPlaintext, "List fails closed too")
	}

	mixed := newThread()
	putOne(t, s, mixed, map[string]string{"x": "secret"})
	setBlob(t, db, mixed, "x", []byte("plain"))
	_, err = get(s, mixed)
	requireEncError(t, err, encrypt.ErrPlaintext, mixed, "x")

	// A plaintext pending write in an encrypted checkpoint.
	wt := newThread()
	wid := putOne(t, s, wt, map[string]string{"x": "secret"})
	require.NoError(t, raw.PutWrites(context.Background(), checkpoint.Config{ThreadID: wt, CheckpointID: wid}, "task", []checkpoint.PendingWrite{{Channel: "x", Value: []byte("plain")}}))
	_, err = get(s, wt)
	requireEncError(t, err, encrypt.ErrPlaintext, wt, "x")
}

// Any byte of an envelope changed — magic, key id, nonce, label,
// ciphertext, tag — makes the read fail.
func TestTamperedCiphertextFails(t *testing.T) {
	t.Parallel()
	s, _, db := encryptedSQLite(t, newRing(t))
	thread := newThread()
	putOne(t, s, thread, map[string]string{"x": "some value"})
	orig := blobData(t, db, thread, "x")
	for i := range orig {
		bad := bytes.Clone(orig)
		bad[i] ^= 0x01
		setBlob(t, db, thread, "x", bad)
		_, err := get(s, thread)
		require.Errorf(t, err, "byte %d flipped", i)
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, "byte %d flipped", i)
	}
	for _, bad := range [][]byte{orig[:len(orig)-1], orig[:10], append(bytes.Clone(orig), 0)} {
		setBlob(t, db, thread, "x", bad)
		_, err := get(s, thread)
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, "length %d", len(bad))
	}
	setBlob(t, db, thread, "x", orig)
	_, err := get(s, thread)
	require.NoError(t, err, "the original bytes read again")
}

// The seal covers what stays in clear: metadata (user metadata, step,
// source), channel versions (a rollback of a channel to a version it
// really had) and the parent link, on a backend that checks none of them.
func TestSealCoversMetadataVersionsAndParent(t *testing.T) {
	t.Parallel()
	for _, c := range sealTampers {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var head string
			s := encrypt.Wrap(tampered(&head, c.tamper), newRing(t))
			thread := newThread()
			first := putOne(t, s, thread, map[string]string{"x": "1"})
			head = checkpoint.NewID()
			_, err := s.Put(context.Background(), checkpoint.PutRequest{
				Config: checkpoint.Config{ThreadID: thread, CheckpointID: first},
				Checkpoint: checkpoint.Checkpoint{ID: head, Versions: map[string]string{"x": "v2"},
					New: map[string]checkpoint.Blob{"x": {Version: "v2", Data: []byte("2")}}},
				Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 2, Extra: map[string]any{"user": "ada"}},
				ExpectHead: first,
			})
			require.NoError(t, err)
			_, err = get(s, thread)
			ee := requireEncError(t, err, encrypt.ErrSealMismatch, thread, "")
			assert.Equal(t, head, ee.Checkpoint)
			assert.Equal(t, "seal", ee.What)
		})
	}
}
