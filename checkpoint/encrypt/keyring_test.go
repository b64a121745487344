package encrypt_test

import (
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
)

// A rotation: rows written under the old key still read under a keyring
// whose active key is new, new rows use the new key, and a keyring that
// dropped the old key refuses the old rows by name.
func TestRotatedKeyStillReadsOldRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	raw := openSQLite(t, path)
	k1, k2 := newKey(t, "2026-11"), newKey(t, "2026-12")

	before, err := encrypt.NewKeyring(k1)
	require.NoError(t, err)
	old := newThread()
	putOne(t, encrypt.Wrap(raw, before), old, map[string]string{"x": "written under k1"})

	rotated, err := encrypt.NewKeyring(k2, k1)
	require.NoError(t, err)
	require.Equal(t, "2026-12", rotated.Active())
	s := encrypt.Wrap(raw, rotated)
	tup, err := get(s, old)
	require.NoError(t, err)
	assert.Equal(t, "written under k1", string(tup.Checkpoint.Values["x"].Snapshot))

	fresh := newThread()
	putOne(t, s, fresh, map[string]string{"x": "written under k2"})
	data := blobData(t, openDB(t, path), fresh, "x")
	assert.Contains(t, string(data), "2026-12", "the envelope names the active key")

	// Old readers do not know k2; a ring without k1 no longer reads the
	// old rows.
	_, err = get(encrypt.Wrap(raw, before), fresh)
	requireEncError(t, err, encrypt.ErrUnknownKey, fresh, "")
	assert.Contains(t, err.Error(), "2026-12")
	only2, err := encrypt.NewKeyring(k2)
	require.NoError(t, err)
	_, err = get(encrypt.Wrap(raw, only2), old)
	requireEncError(t, err, encrypt.ErrUnknownKey, old, "")
	tup, err = get(encrypt.Wrap(raw, only2), fresh)
	require.NoError(t, err)
	assert.Equal(t, "written under k2", string(tup.Checkpoint.Values["x"].Snapshot))
}

// A key with the right id but another secret does not open a row: the
// key id is a name, not a credential.
func TestWrongSecretUnderSameKeyIDFails(t *testing.T) {
	t.Parallel()
	s, raw, _ := encryptedSQLite(t, newRing(t))
	thread := newThread()
	putOne(t, s, thread, map[string]string{"x": "1"})
	_, err := get(encrypt.Wrap(raw, newRing(t)), thread) // also "k1"
	requireEncError(t, err, encrypt.ErrUnauthentic, thread, "")
}

func TestKeyringRefusesBadKeys(t *testing.T) {
	t.Parallel()
	good := newKey(t, "a")
	cases := []struct {
		name   string
		active encrypt.Key
		old    []encrypt.Key
		want   string
	}{
		{"short secret", encrypt.Key{ID: "a", Secret: make([]byte, 16)}, nil, "secret is 16 bytes, want 32"},
		{"empty id", encrypt.Key{Secret: good.Secret}, nil, "must be 1 to 255 bytes"},
		{"long id", encrypt.Key{ID: strings.Repeat("k", 256), Secret: good.Secret}, nil, "must be 1 to 255 bytes"},
		{"duplicate id", good, []encrypt.Key{newKey(t, "a")}, `key id "a" is in the keyring twice`},
		{"bad old key", good, []encrypt.Key{{ID: "b"}}, `key "b": secret is 0 bytes`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := encrypt.NewKeyring(c.active, c.old...)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestKeyFromBase64(t *testing.T) {
	t.Parallel()
	secret := newKey(t, "x").Secret
	k, err := encrypt.KeyFromBase64("prod-1", base64.StdEncoding.EncodeToString(secret))
	require.NoError(t, err)
	assert.Equal(t, encrypt.Key{ID: "prod-1", Secret: secret}, k)
	_, err = encrypt.KeyFromBase64("prod-1", "not base64!")
	require.ErrorContains(t, err, `key "prod-1": secret is not base64`)
	_, err = encrypt.KeyFromBase64("prod-1", base64.StdEncoding.EncodeToString(secret[:31]))
	require.ErrorContains(t, err, "secret is 31 bytes")
}

// The channel name of the seal is the wrapper's: a caller cannot store a
// value under it.
func TestPutRefusesTheSealChannel(t *testing.T) {
	t.Parallel()
	s, _, _ := encryptedSQLite(t, newRing(t))
	thread := newThread()
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), Versions: map[string]string{encrypt.SealChannel: "v"}},
	})
	require.ErrorContains(t, err, "is reserved")
	_, err = get(s, thread)
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "nothing stored")
}
