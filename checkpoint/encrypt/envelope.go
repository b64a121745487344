package encrypt

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// The envelope of every encrypted value:
//
//	magic   4 bytes  "SGE" and the format version, 1
//	keylen  1 byte   length of the key id
//	key id  keylen bytes
//	nonce   24 bytes, random (XChaCha20-Poly1305)
//	label   uvarint length, then bytes: the blob's version, base and delta
//	        flag (empty for other values), so a reader can check a delta
//	        chain whose versions the saver does not return
//	sealed  the ciphertext and its 16-byte tag
//
// The associated data is a domain string, the purpose of the value (blob,
// write, seal), the identity of its row (thread, namespace, then channel,
// checkpoint, task, index as the purpose has them), each length-prefixed,
// and the whole header above, so the key id and the label are
// authenticated too.
var magic = []byte{'S', 'G', 'E', 1}

const domain = "stategraph/checkpoint/encrypt v1"

// Purposes of a value, part of its associated data.
const (
	purposeBlob  byte = 'b'
	purposeWrite byte = 'w'
	purposeSeal  byte = 's'
)

// identity is what a ciphertext is bound to.
type identity struct {
	purpose byte
	fields  []string
}

// ad appends the associated data of a value with this header to buf[:0].
func (id identity) ad(buf, header []byte) []byte {
	ad := append(buf[:0], domain...)
	ad = append(ad, 0, id.purpose)
	for _, f := range id.fields {
		ad = binary.AppendUvarint(ad, uint64(len(f)))
		ad = append(ad, f...)
	}
	return append(ad, header...)
}

// seal encrypts plaintext under the active key, bound to id, with label
// in the header.
func (r *Keyring) seal(plaintext []byte, id identity, label []byte) ([]byte, error) {
	a := r.aeads[r.active]
	n := len(magic) + 1 + len(r.active) + chacha20poly1305.NonceSizeX + binary.MaxVarintLen64 + len(label)
	out := make([]byte, 0, n+len(plaintext)+a.Overhead())
	out = append(out, magic...)
	out = append(out, byte(len(r.active)))
	out = append(out, r.active...)
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("encrypt: nonce: %w", err)
	}
	out = append(out, nonce...)
	out = binary.AppendUvarint(out, uint64(len(label)))
	out = append(out, label...)
	header := out
	return a.Seal(out, nonce, plaintext, id.ad(make([]byte, 0, len(domain)+len(header)+64), header)), nil
}

// Reasons an envelope does not open. Every one is reported as an *Error.
var (
	// ErrPlaintext: the stored bytes are not an envelope — a row written
	// without encryption, or damaged at its start.
	ErrPlaintext = errors.New("encrypt: value is not encrypted")
	// ErrUnknownKey: the envelope names a key the keyring does not hold.
	ErrUnknownKey = errors.New("encrypt: value encrypted with a key not in the keyring")
	// ErrUnauthentic: the envelope does not open under its key and the
	// identity of the row it was read from: it was made for another row
	// (moved or replayed), tampered with, or its key id lies.
	ErrUnauthentic = errors.New("encrypt: value does not authenticate for this row")
)

// opener decrypts the values of one read, reusing its buffers: the
// associated data's, and an arena the plaintexts are cut from. It is not
// safe for concurrent use.
type opener struct {
	ring  *Keyring
	ad    []byte
	arena []byte
}

// open decrypts data bound to id, returning the plaintext and the label
// (a slice of data).
func (o *opener) open(data []byte, id identity) (plain, label []byte, err error) {
	r := o.ring
	if !bytes.HasPrefix(data, magic) {
		return nil, nil, ErrPlaintext
	}
	rest := data[len(magic):]
	if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
		return nil, nil, fmt.Errorf("%w: truncated header", ErrUnauthentic)
	}
	keyID := string(rest[1 : 1+int(rest[0])])
	rest = rest[1+int(rest[0]):]
	a, ok := r.aeads[keyID]
	if !ok {
		return nil, nil, fmt.Errorf("%w: key %q", ErrUnknownKey, keyID)
	}
	if len(rest) < chacha20poly1305.NonceSizeX {
		return nil, nil, fmt.Errorf("%w: truncated nonce", ErrUnauthentic)
	}
	nonce := rest[:chacha20poly1305.NonceSizeX]
	rest = rest[chacha20poly1305.NonceSizeX:]
	ll, n := binary.Uvarint(rest)
	if n <= 0 || uint64(len(rest)-n) < ll {
		return nil, nil, fmt.Errorf("%w: truncated label", ErrUnauthentic)
	}
	label = rest[n : n+int(ll)]
	sealed := rest[n+int(ll):]
	header := data[:len(data)-len(sealed)]
	o.ad = id.ad(o.ad, header)
	n = max(len(sealed)-a.Overhead(), 0)
	if len(o.arena) < n {
		o.arena = make([]byte, n)
	}
	plain, err = a.Open(o.arena[:0:n], nonce, sealed, o.ad)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (key %q)", ErrUnauthentic, keyID)
	}
	o.arena = o.arena[n:]
	return plain, label, nil
}

// blobLabel is the label of a blob: its version, its base and its delta
// flag.
func blobLabel(version, base string, delta bool) []byte {
	b := binary.AppendUvarint(nil, uint64(len(version)))
	b = append(b, version...)
	b = binary.AppendUvarint(b, uint64(len(base)))
	b = append(b, base...)
	if delta {
		return append(b, 1)
	}
	return append(b, 0)
}

// parseBlobLabel reads what blobLabel wrote; version and base are
// slices of b.
func parseBlobLabel(b []byte) (version, base []byte, delta, ok bool) {
	next := func() ([]byte, bool) {
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, false
		}
		s := b[n : n+int(l)]
		b = b[n+int(l):]
		return s, true
	}
	if version, ok = next(); !ok {
		return
	}
	if base, ok = next(); !ok {
		return
	}
	if len(b) != 1 || b[0] > 1 {
		return nil, nil, false, false
	}
	return version, base, b[0] == 1, true
}
