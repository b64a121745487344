package memory

import (
	"context"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Fencer = (*Saver)(nil)

// FencesWrites marks the saver as a checkpoint.Fencer: Put and PutWrites
// store nothing when their context is fenced (checkpoint.WithFence) by a
// lease of this saver on their thread that is no longer held.
func (s *Saver) FencesWrites() {}

// checkFence fails when ctx is fenced by a lease of s on thread that is
// no longer held. The caller holds s.mu, so no write of the thread goes
// between the check and the store.
func (s *Saver) checkFence(ctx context.Context, thread string) error {
	ml, ok := checkpoint.FenceOf(ctx).(*memLease)
	if !ok || ml.l != &s.leases || ml.info.Thread != thread {
		return nil
	}
	ml.l.mu.Lock()
	defer ml.l.mu.Unlock()
	if ml.l.held[thread] != ml {
		return checkpoint.FenceLostError(thread, ml.info.Holder)
	}
	return nil
}
