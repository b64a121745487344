package memory

import (
	"context"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Leaser = (*Saver)(nil)

// leases holds the thread leases of a Saver, for the runs of this process
// that share it.
type leases struct {
	now  func() time.Time // nil: time.Now
	mu   sync.Mutex
	held map[string]*memLease // by thread
}

func (l *leases) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// Option configures New.
type Option func(*Saver)

// WithLeaseClock makes the Saver read the time of its leases (taken,
// renewed, expired) from now instead of the local clock: tests move it
// rather than wait for it.
func WithLeaseClock(now func() time.Time) Option { return func(s *Saver) { s.leases.now = now } }

// memLease is a lease of the memory saver. Its info changes under the
// leases' lock.
type memLease struct {
	l    *leases
	ttl  time.Duration
	info checkpoint.LeaseInfo
}

// Lease takes the lease on thread for holder (see checkpoint.Leaser).
func (s *Saver) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	if err := checkpoint.CheckLease(thread, holder, ttl); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &s.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock()
	if cur := l.held[thread]; cur != nil && now.Before(cur.info.Expires) {
		return nil, &checkpoint.BusyError{LeaseInfo: cur.info}
	}
	if l.held == nil {
		l.held = map[string]*memLease{}
	}
	ml := &memLease{l: l, ttl: ttl, info: checkpoint.LeaseInfo{Thread: thread, Holder: holder, Since: now, Expires: now.Add(ttl)}}
	l.held[thread] = ml
	return ml, nil
}

// LeaseOf returns the live lease of thread, or nil.
func (s *Saver) LeaseOf(ctx context.Context, thread string) (*checkpoint.LeaseInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := &s.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.held[thread]
	if cur == nil || !l.clock().Before(cur.info.Expires) {
		return nil, nil
	}
	info := cur.info
	return &info, nil
}

// Renew extends the lease to its ttl from now.
func (ml *memLease) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ml.l.mu.Lock()
	defer ml.l.mu.Unlock()
	if ml.l.held[ml.info.Thread] != ml {
		return checkpoint.LeaseLostError(ml.info.Thread, ml.info.Holder)
	}
	ml.info.Expires = ml.l.clock().Add(ml.ttl)
	return nil
}

// Release gives the lease up.
func (ml *memLease) Release(ctx context.Context) error {
	ml.l.mu.Lock()
	defer ml.l.mu.Unlock()
	if ml.l.held[ml.info.Thread] != ml {
		return checkpoint.LeaseLostError(ml.info.Thread, ml.info.Holder)
	}
	delete(ml.l.held, ml.info.Thread)
	return nil
}

// Info describes the lease.
func (ml *memLease) Info() checkpoint.LeaseInfo {
	ml.l.mu.Lock()
	defer ml.l.mu.Unlock()
	return ml.info
}

var _ checkpoint.LeaseBreaker = (*Saver)(nil)

// BreakLease removes the lease of thread if holder holds it (see
// checkpoint.LeaseBreaker).
func (s *Saver) BreakLease(ctx context.Context, thread, holder string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	l := &s.leases
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.held[thread]
	if cur == nil || cur.info.Holder != holder {
		return false, nil
	}
	delete(l.held, thread)
	return true, nil
}
