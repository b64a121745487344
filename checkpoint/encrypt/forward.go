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

// txSaver is graph.TxSaver, named here so the wrapper does not import
// the runtime: a saver that commits a task's writes in a transaction with
// the caller's rows (checkpoint/sqlite, checkpoint/postgres).
type txSaver interface {
	PutWritesTx(ctx context.Context, cfg checkpoint.Config, taskID string, fn func(tx any) ([]checkpoint.PendingWrite, error)) error
}

type txer struct{ c *core }

// PutWritesTx runs the wrapped saver's PutWritesTx (graph.TxSaver): fn
// gets the wrapped saver's transaction as it is, and the writes it returns
// are encrypted as PutWrites encrypts them before they are stored in that
// transaction. An error of encrypting rolls the transaction back.
func (x txer) PutWritesTx(ctx context.Context, cfg checkpoint.Config, taskID string, fn func(tx any) ([]checkpoint.PendingWrite, error)) error {
	return x.c.inner.(txSaver).PutWritesTx(ctx, cfg, taskID, func(tx any) ([]checkpoint.PendingWrite, error) {
		writes, err := fn(tx)
		if err != nil {
			return nil, err
		}
		return x.c.sealWrites(cfg, taskID, writes)
	})
}

// shape returns c as a value that implements exactly the optional
// interfaces (of those forwarded) that c.inner implements. The cases are
// written out because Go cannot build a struct type at run time: each
// combination the savers of this module have (and their subsets) is one
// anonymous struct.
func shape(c *core) checkpoint.Saver {
	_, isLeaser := c.inner.(checkpoint.Leaser)
	_, isBreaker := c.inner.(checkpoint.LeaseBreaker)
	_, isPruner := c.inner.(checkpoint.Pruner)
	_, isVerifier := c.inner.(checkpoint.Verifier)
	_, isTxer := c.inner.(txSaver)
	l, b, p, v, x := leaser{c}, breaker{c}, pruner{c}, verifier{c}, txer{c}
	switch {
	case isLeaser && isBreaker && isPruner && isVerifier && isTxer:
		return struct {
			*core
			leaser
			breaker
			pruner
			verifier
			txer
		}{c, l, b, p, v, x}
	case isLeaser && isBreaker && isPruner && isTxer:
		return struct {
			*core
			leaser
			breaker
			pruner
			txer
		}{c, l, b, p, x}
	case isLeaser && isBreaker && isVerifier && isTxer:
		return struct {
			*core
			leaser
			breaker
			verifier
			txer
		}{c, l, b, v, x}
	case isLeaser && isBreaker && isTxer:
		return struct {
			*core
			leaser
			breaker
			txer
		}{c, l, b, x}
	case isLeaser && isPruner && isVerifier && isTxer:
		return struct {
			*core
			leaser
			pruner
			verifier
			txer
		}{c, l, p, v, x}
	case isLeaser && isPruner && isTxer:
		return struct {
			*core
			leaser
			pruner
			txer
		}{c, l, p, x}
	case isLeaser && isVerifier && isTxer:
		return struct {
			*core
			leaser
			verifier
			txer
		}{c, l, v, x}
	case isLeaser && isTxer:
		return struct {
			*core
			leaser
			txer
		}{c, l, x}
	case isPruner && isVerifier && isTxer:
		return struct {
			*core
			pruner
			verifier
			txer
		}{c, p, v, x}
	case isPruner && isTxer:
		return struct {
			*core
			pruner
			txer
		}{c, p, x}
	case isVerifier && isTxer:
		return struct {
			*core
			verifier
			txer
		}{c, v, x}
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
	case isTxer:
		return struct {
			*core
			txer
		}{c, x}
	}
	return c
}
