package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Leaser = (*Saver)(nil)

// A lease is a row of stategraph_leases. It is taken by one statement that
// inserts the row, or takes over a row whose lease expired, so of many
// processes one wins; every time is the server's clock_timestamp().

// pgLease is a lease of the PostgreSQL saver; token tells it from a later
// lease of the same thread.
type pgLease struct {
	s     *Saver
	token string
	ttl   time.Duration
	mu    sync.Mutex
	info  checkpoint.LeaseInfo
}

// Lease takes the lease on thread for holder (see checkpoint.Leaser).
func (s *Saver) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	if err := checkpoint.CheckLease(thread, holder, ttl); err != nil {
		return nil, err
	}
	l := &pgLease{s: s, token: checkpoint.NewID(), ttl: ttl}
	take := `INSERT INTO ` + s.t.leases + ` AS l (thread_id, token, holder, since, expires)
VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp() + $4 * interval '1 microsecond')
ON CONFLICT (thread_id) DO UPDATE SET token = excluded.token, holder = excluded.holder, since = excluded.since, expires = excluded.expires
WHERE l.expires <= clock_timestamp()
RETURNING since, expires`
	// The lease that kept this one out may be released or expire before
	// it is read: then try again.
	for range 3 {
		var since, expires time.Time
		err := s.pool.QueryRow(ctx, take, thread, l.token, holder, ttl.Microseconds()).Scan(&since, &expires)
		if err == nil {
			l.info = checkpoint.LeaseInfo{Thread: thread, Holder: holder, Since: since, Expires: expires}
			return l, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("postgres: lease thread %q: %w", thread, err)
		}
		cur, err := s.LeaseOf(ctx, thread)
		if err != nil {
			return nil, err
		}
		if cur != nil {
			return nil, &checkpoint.BusyError{LeaseInfo: *cur}
		}
	}
	return nil, fmt.Errorf("postgres: lease thread %q: taken and released by others three times over: %w", thread, checkpoint.ErrBusy)
}

// LeaseOf returns the live lease of thread, or nil.
func (s *Saver) LeaseOf(ctx context.Context, thread string) (*checkpoint.LeaseInfo, error) {
	info := checkpoint.LeaseInfo{Thread: thread}
	err := s.pool.QueryRow(ctx, `SELECT holder, since, expires FROM `+s.t.leases+`
WHERE thread_id = $1 AND expires > clock_timestamp()`, thread).Scan(&info.Holder, &info.Since, &info.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: lease of thread %q: %w", thread, err)
	}
	return &info, nil
}

// Renew extends the lease to its ttl from now (the server's now).
func (l *pgLease) Renew(ctx context.Context) error {
	var expires time.Time
	err := l.s.pool.QueryRow(ctx, `UPDATE `+l.s.t.leases+` SET expires = clock_timestamp() + $3 * interval '1 microsecond'
WHERE thread_id = $1 AND token = $2 RETURNING expires`, l.info.Thread, l.token, l.ttl.Microseconds()).Scan(&expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return checkpoint.LeaseLostError(l.info.Thread, l.info.Holder)
	}
	if err != nil {
		return fmt.Errorf("postgres: renew lease of thread %q: %w", l.info.Thread, err)
	}
	l.mu.Lock()
	l.info.Expires = expires
	l.mu.Unlock()
	return nil
}

// Release gives the lease up; under a context of WithDeferredRelease it
// hands the lease to its DeferredRelease instead.
func (l *pgLease) Release(ctx context.Context) error {
	if hold(ctx, l) {
		return nil
	}
	tag, err := l.s.pool.Exec(ctx, `DELETE FROM `+l.s.t.leases+` WHERE thread_id = $1 AND token = $2`, l.info.Thread, l.token)
	if err != nil {
		return fmt.Errorf("postgres: release lease of thread %q: %w", l.info.Thread, err)
	}
	if tag.RowsAffected() == 0 {
		return checkpoint.LeaseLostError(l.info.Thread, l.info.Holder)
	}
	return nil
}

// Info describes the lease as last taken or renewed.
func (l *pgLease) Info() checkpoint.LeaseInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

var _ checkpoint.LeaseBreaker = (*Saver)(nil)

// BreakLease removes the lease of thread if holder holds it (see
// checkpoint.LeaseBreaker).
func (s *Saver) BreakLease(ctx context.Context, thread, holder string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+s.t.leases+` WHERE thread_id = $1 AND holder = $2`, thread, holder)
	if err != nil {
		return false, fmt.Errorf("postgres: break lease of thread %q (holder %s): %w", thread, holder, err)
	}
	return tag.RowsAffected() > 0, nil
}
