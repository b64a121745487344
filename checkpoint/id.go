package checkpoint

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	mrand "math/rand/v2"
	"sync"
	"time"
)

var ids struct {
	sync.Mutex
	last [16]byte
	rng  *mrand.ChaCha8
}

// NewID returns a new checkpoint id: a UUIDv7 whose string form sorts by
// creation time and is strictly greater than every id this process made
// before it, even within one millisecond. Its random bits come from a
// ChaCha8 stream seeded from crypto/rand: unpredictable enough for ids,
// and cheap enough to make one per step.
func NewID() string {
	ids.Lock()
	if ids.rng == nil {
		var seed [32]byte
		_, _ = rand.Read(seed[:])
		ids.rng = mrand.NewChaCha8(seed)
	}
	var u [16]byte
	ms := uint64(time.Now().UnixMilli())
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	binary.BigEndian.PutUint64(u[8:], ids.rng.Uint64())
	binary.BigEndian.PutUint16(u[6:], uint16(ids.rng.Uint64()))
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	if string(u[:]) <= string(ids.last[:]) {
		u = next(ids.last)
	}
	ids.last = u
	ids.Unlock()
	return format(u)
}

// NewIDAfter returns a new checkpoint id that sorts after prev (the head
// the checkpoint will be put on): NewID's when it does, and otherwise —
// prev was made by a process whose clock is ahead, or earlier in the same
// millisecond elsewhere — the id right after prev. Ids this process makes
// later sort after it too. The runtime makes each checkpoint's id so, so
// that the head decides the order, never a process clock alone. A prev
// that is not a canonical lowercase UUID gets NewID's id.
func NewIDAfter(prev string) string {
	id := NewID()
	if id > prev {
		return id
	}
	u, ok := parseID(prev)
	if !ok {
		return id
	}
	u = next(u)
	ids.Lock()
	if string(u[:]) > string(ids.last[:]) {
		ids.last = u
	}
	ids.Unlock()
	return format(u)
}

// parseID reads an id in the form format writes.
func parseID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	if _, err := hex.Decode(u[:], []byte(h)); err != nil || format(u) != s {
		return u, false // not hex, or not lowercase
	}
	return u, true
}

// format writes u in the canonical 8-4-4-4-12 form.
func format(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// next returns the id after u, keeping the version and variant bits.
func next(u [16]byte) [16]byte {
	// Increment the 62 random bits of rand_b (bytes 8-15, minus the two
	// variant bits), carrying into rand_a (bytes 6-7, minus the four
	// version bits) and then into the timestamp.
	for i := 15; i >= 0; i-- {
		switch {
		case i == 8:
			if u[8]&0x3f != 0x3f {
				u[8]++
				return u
			}
			u[8] &^= 0x3f
		case i == 6:
			if u[6]&0x0f != 0x0f {
				u[6]++
				return u
			}
			u[6] &^= 0x0f
		default:
			if u[i] != 0xff {
				u[i]++
				return u
			}
			u[i] = 0
		}
	}
	return u
}

// DeriveID returns a deterministic UUID (version 5 layout, SHA-1) for the
// given parts: the same parts always give the same id. The runtime uses it
// for task ids, so that a resumed step finds the writes of its tasks.
func DeriveID(parts ...string) string {
	h := sha1Of(parts)
	var u [16]byte
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return format(u)
}
