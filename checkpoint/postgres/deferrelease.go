package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A deferred release lets a caller free a lease in a statement of its own:
// the worker records a run's end and deletes its thread's lease in one
// statement, one round trip and one commit fewer a run (issue #34). The
// graph runtime releases a run's lease with a context derived from the
// run's, so the mark travels with it.

// DeferredRelease holds the lease of this package's savers whose release
// was asked for under a context of WithDeferredRelease, until its holder
// deletes the lease row itself (then Settled) or gives up (Release). At
// most one lease is held; a second lease released under the same context
// is released at once.
type DeferredRelease struct {
	holds func(holder string) bool

	mu      sync.Mutex
	l       *pgLease
	settled bool
}

// PendingLease names the lease row a DeferredRelease holds: delete the
// row of Table (a quoted, possibly schema-qualified name) in the database
// of Pool whose thread_id is Thread and whose token is Token.
type PendingLease struct {
	Pool                 *pgxpool.Pool
	Table, Thread, Token string
}

type deferKey struct{}

// WithDeferredRelease returns a context under which the Release of a
// lease of this package's savers whose holder holds accepts deletes
// nothing but hands the lease to the returned DeferredRelease; other
// leases (a state update's before the run, say) are released at once.
// Its holder must end it with Settled or Release, or the lease stays
// until it expires.
func WithDeferredRelease(ctx context.Context, holds func(holder string) bool) (context.Context, *DeferredRelease) {
	d := &DeferredRelease{holds: holds}
	return context.WithValue(ctx, deferKey{}, d), d
}

// hold keeps l in the DeferredRelease of ctx, if there is one, it accepts
// l's holder and it holds nothing yet: then l's release is the holder's to do.
func hold(ctx context.Context, l *pgLease) bool {
	d, ok := ctx.Value(deferKey{}).(*DeferredRelease)
	if !ok || !d.holds(l.Info().Holder) {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.l != nil || d.settled {
		return false
	}
	d.l = l
	return true
}

// Pending returns the lease row to delete, and false when no release was
// deferred or it was settled.
func (d *DeferredRelease) Pending() (PendingLease, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.l == nil || d.settled {
		return PendingLease{}, false
	}
	return PendingLease{Pool: d.l.s.pool, Table: d.l.s.t.leases, Thread: d.l.info.Thread, Token: d.l.token}, true
}

// Settled records that the holder deleted the pending lease row (in a
// statement that committed). Later leases are released at once.
func (d *DeferredRelease) Settled() {
	d.mu.Lock()
	d.settled = true
	d.mu.Unlock()
}

// Release deletes the pending lease row, if any: what the lease's own
// Release would have done. A lease that expired or was broken meanwhile
// is no error here, since it is free either way. Later leases are
// released at once.
func (d *DeferredRelease) Release(ctx context.Context) error {
	d.mu.Lock()
	l := d.l
	done := d.settled
	d.settled = true
	d.mu.Unlock()
	if l == nil || done {
		return nil
	}
	if _, err := l.s.pool.Exec(ctx, `DELETE FROM `+l.s.t.leases+` WHERE thread_id = $1 AND token = $2`, l.info.Thread, l.token); err != nil {
		return fmt.Errorf("postgres: release the deferred lease of thread %q: %w", l.info.Thread, err)
	}
	return nil
}
