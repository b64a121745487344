package encrypt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
)

// Error is the error of a value that does not decrypt: it names the row
// (thread, namespace, checkpoint, and the channel or pending write) and
// wraps the reason (ErrPlaintext, ErrUnknownKey or ErrUnauthentic). It
// also matches checkpoint.ErrCorrupt: to the runtime a row that does not
// authenticate is damage, and a read never returns different data.
type Error struct {
	Thread, Namespace, Checkpoint string
	// Channel is the channel of the blob or pending write ("" for the
	// checkpoint's seal).
	Channel string
	// Task and Index name a pending write (Task is "" for a blob).
	Task  string
	Index int
	// What says what was read: "blob", "pending write", "seal".
	What string
	Err  error
}

// Error names the row and the reason.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "encrypt: thread %q", e.Thread)
	if e.Namespace != "" {
		fmt.Fprintf(&b, ", namespace %q", e.Namespace)
	}
	fmt.Fprintf(&b, ", checkpoint %q", e.Checkpoint)
	switch e.What {
	case "pending write":
		fmt.Fprintf(&b, ", pending write %d of task %q to channel %q", e.Index, e.Task, e.Channel)
	case "seal":
		b.WriteString(", checkpoint seal")
	default:
		fmt.Fprintf(&b, ", channel %q", e.Channel)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is checkpoint.ErrCorrupt.
func (e *Error) Is(target error) bool { return target == checkpoint.ErrCorrupt }

// ErrSealMismatch: a checkpoint's channel versions, parent or metadata
// are not those it was written with (or its seal belongs to another
// checkpoint).
var ErrSealMismatch = errors.New("encrypt: checkpoint versions, parent or metadata changed since it was written")

// ErrChain: a channel's value is made of blobs that do not link up: a
// snapshot or delta of another version stands in the chain.
var ErrChain = errors.New("encrypt: blob chain does not link to the checkpoint's version")
