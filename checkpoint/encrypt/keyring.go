package encrypt

import (
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the length of a key's secret: 32 bytes (256 bits).
const KeySize = chacha20poly1305.KeySize

// Key is one encryption key: a secret of KeySize random bytes and an id
// that names it in every ciphertext it makes, so that a reader knows which
// key opens a row. Ids are public (they are stored in clear); secrets
// never leave the process.
type Key struct {
	// ID names the key: 1 to 255 bytes, unique in a Keyring ("2026-12",
	// "kms:v7").
	ID string
	// Secret is the key itself: KeySize bytes from a cryptographic random
	// source (crypto/rand, a KMS data key), never a password.
	Secret []byte
}

// KeyFromBase64 returns the key id whose secret is s, standard base64 of
// KeySize bytes (what `openssl rand -base64 32` prints), as keys are kept
// in environment variables or secret stores.
func KeyFromBase64(id, s string) (Key, error) {
	secret, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return Key{}, fmt.Errorf("encrypt: key %q: secret is not base64: %w", id, err)
	}
	k := Key{ID: id, Secret: secret}
	if err := k.check(); err != nil {
		return Key{}, err
	}
	return k, nil
}

func (k Key) check() error {
	switch {
	case k.ID == "" || len(k.ID) > 255:
		return fmt.Errorf("encrypt: key id %q: must be 1 to 255 bytes", k.ID)
	case len(k.Secret) != KeySize:
		return fmt.Errorf("encrypt: key %q: secret is %d bytes, want %d", k.ID, len(k.Secret), KeySize)
	}
	return nil
}

// Keyring holds the keys of a wrapped saver: one active key, which
// encrypts everything written, and older keys, which only decrypt what
// they encrypted before a rotation. A Keyring is immutable and safe for
// concurrent use; rotate by building a new one (see docs/encryption.md).
type Keyring struct {
	active string
	aeads  map[string]cipher.AEAD
}

// NewKeyring returns the keyring whose active key is active and which
// also reads what the old keys encrypted. Key ids must be unique.
func NewKeyring(active Key, old ...Key) (*Keyring, error) {
	r := &Keyring{active: active.ID, aeads: make(map[string]cipher.AEAD, 1+len(old))}
	for _, k := range append([]Key{active}, old...) {
		if err := k.check(); err != nil {
			return nil, err
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("encrypt: key id %q is in the keyring twice", k.ID)
		}
		a, err := chacha20poly1305.NewX(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("encrypt: key %q: %w", k.ID, err)
		}
		r.aeads[k.ID] = a
	}
	return r, nil
}

// Active returns the id of the key that encrypts new rows.
func (r *Keyring) Active() string { return r.active }

// errNoKeyring is Wrap's answer to a nil keyring.
var errNoKeyring = errors.New("encrypt: Wrap: nil keyring")
