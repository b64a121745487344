package encrypt

import (
	"context"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// The optional interfaces of the wrapped saver that carry no values are
// forwarded, and only those it implements: the runtime detects them by
// type assertion (a Leaser makes runs take leases), so the wrapper must
// not claim one its saver lacks. Each is a small type that embeds into
// the shape Wrap returns.

type leaser struct{ c *core }

// Lease takes the wrapped saver's lease on thread.
func (l leaser) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	return l.c.inner.(checkpoint.Leaser).Lease(ctx, thread, holder, ttl)
}

// LeaseOf returns the wrapped saver's live lease of thread.
func (l leaser) LeaseOf(ctx context.Context, thread string) (*checkpoint.LeaseInfo, error) {
	return l.c.inner.(checkpoint.Leaser).LeaseOf(ctx, thread)
}

type breaker struct{ c *core }

// BreakLease breaks the wrapped saver's lease of thread held by holder.
func (b breaker) BreakLease(ctx context.Context, thread, holder string) (bool, error) {
	return b.c.inner.(checkpoint.LeaseBreaker).BreakLease(ctx, thread, holder)
}

type pruner struct{ c *core }

// Prune prunes through the wrapped saver (seals are blobs of the
// checkpoints they seal, so they go with them).
func (p pruner) Prune(ctx context.Context, threadID string, keep int) error {
	return p.c.inner.(checkpoint.Pruner).Prune(ctx, threadID, keep)
}

type verifier struct{ c *core }

// Verify runs the wrapped saver's Verify (checksums and links of every
// row), then reads the thread's root namespace through the wrapper, so
// every checkpoint there is authenticated and decrypted too. Child
// namespaces are authenticated when they are read.
func (v verifier) Verify(ctx context.Context, threadID string) error {
	if err := v.c.inner.(checkpoint.Verifier).Verify(ctx, threadID); err != nil {
		return err
	}
	for _, err := range v.c.List(ctx, checkpoint.Config{ThreadID: threadID}, checkpoint.ListOptions{}) {
		if err != nil {
			return err
		}
	}
	return nil
}

// shape returns c as a value that implements exactly the optional
// interfaces (of those forwarded) that c.inner implements.
func shape(c *core) checkpoint.Saver {
	_, isLeaser := c.inner.(checkpoint.Leaser)
	_, isBreaker := c.inner.(checkpoint.LeaseBreaker)
	_, isPruner := c.inner.(checkpoint.Pruner)
	_, isVerifier := c.inner.(checkpoint.Verifier)
	l, b, p, v := leaser{c}, breaker{c}, pruner{c}, verifier{c}
	switch {
	case isLeaser && isBreaker && isPruner && isVerifier:
		return struct {
			*core
			leaser
			breaker
			pruner
			verifier
		}{c, l, b, p, v}
	case isLeaser && isBreaker && isPruner:
		return struct {
			*core
			leaser
			breaker
			pruner
		}{c, l, b, p}
	case isLeaser && isBreaker && isVerifier:
		return struct {
			*core
			leaser
			breaker
			verifier
		}{c, l, b, v}
	case isLeaser && isBreaker:
		return struct {
			*core
			leaser
			breaker
		}{c, l, b}
	case isLeaser && isPruner && isVerifier:
		return struct {
			*core
			leaser
			pruner
			verifier
		}{c, l, p, v}
	case isLeaser && isPruner:
		return struct {
			*core
			leaser
			pruner
		}{c, l, p}
	case isLeaser && isVerifier:
		return struct {
			*core
			leaser
			verifier
		}{c, l, v}
	case isLeaser:
		return struct {
			*core
			leaser
		}{c, l}
	case isPruner && isVerifier:
		return struct {
			*core
			pruner
			verifier
		}{c, p, v}
	case isPruner:
		return struct {
			*core
			pruner
		}{c, p}
	case isVerifier:
		return struct {
			*core
			verifier
		}{c, v}
	}
	return c
}
