package checkpoint

import (
	"sync"

	"github.com/google/uuid"
)

var idMu sync.Mutex
var lastID uuid.UUID

// NewID returns a new checkpoint id: a UUIDv7 whose string form sorts by
// creation time and is strictly greater than every id this process made
// before it, even within one millisecond.
func NewID() string {
	idMu.Lock()
	defer idMu.Unlock()
	id, err := uuid.NewV7()
	if err != nil {
		panic("checkpoint: cannot make a UUIDv7: " + err.Error())
	}
	if string(id[:]) <= string(lastID[:]) {
		id = next(lastID)
	}
	lastID = id
	return id.String()
}

// next returns the id after u, keeping the version and variant bits.
func next(u uuid.UUID) uuid.UUID {
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
