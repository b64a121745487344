package encrypt

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// ThreadSize reports the wrapped saver's size of the thread: its bytes
// are the ciphertext the wrapped saver stores, with the seals. Every
// wrapper has the method, whatever it wraps (the optional interfaces are
// forwarded by shape, whose combinations this one would double); when
// the wrapped saver is no checkpoint.Sizer the error wraps
// errors.ErrUnsupported.
func (c *core) ThreadSize(ctx context.Context, threadID string) (checkpoint.Size, error) {
	sz, ok := c.inner.(checkpoint.Sizer)
	if !ok {
		return checkpoint.Size{}, fmt.Errorf("encrypt: size of thread %q: the wrapped saver (%T) reports no sizes: %w", threadID, c.inner, errors.ErrUnsupported)
	}
	return sz.ThreadSize(ctx, threadID)
}
