package memory

import (
	"context"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Verifier = (*Saver)(nil)

// Verify reports nothing: the memory saver keeps its checkpoints as Go
// values, which nothing outside the process can damage. It checks ctx
// only.
func (s *Saver) Verify(ctx context.Context, threadID string) error {
	return ctx.Err()
}
