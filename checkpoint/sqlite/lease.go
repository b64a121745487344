package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

var _ checkpoint.Leaser = (*Saver)(nil)

// A lease is a row of the leases table, taken in a write transaction, so
// that of two processes on one file one takes it. Times are the local
// clock's: the processes that share a SQLite file share a machine.

// sqlLease is a lease of the SQLite saver; token tells it from a later
// lease of the same thread.
type sqlLease struct {
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
	l := &sqlLease{s: s, token: checkpoint.NewID(), ttl: ttl}
	var busy *checkpoint.BusyError
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		cur, err := leaseRow(ctx, tx, thread, now)
		if err != nil {
			return err
		}
		if cur != nil {
			busy = &checkpoint.BusyError{LeaseInfo: *cur}
			return nil
		}
		l.info = checkpoint.LeaseInfo{Thread: thread, Holder: holder, Since: now, Expires: now.Add(ttl)}
		_, err = tx.ExecContext(ctx, `INSERT INTO leases (thread_id, token, holder, since, expires) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (thread_id) DO UPDATE SET token = excluded.token, holder = excluded.holder, since = excluded.since, expires = excluded.expires`,
			thread, l.token, holder, now.UnixNano(), now.Add(ttl).UnixNano())
		return err
	})
	if err != nil {
		return nil, withCtx(ctx, fmt.Errorf("sqlite: lease thread %q: %w", thread, markCorrupt(err)))
	}
	if busy != nil {
		return nil, busy
	}
	return l, nil
}

// LeaseOf returns the live lease of thread, or nil.
func (s *Saver) LeaseOf(ctx context.Context, thread string) (*checkpoint.LeaseInfo, error) {
	var info *checkpoint.LeaseInfo
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		info, err = leaseRow(ctx, tx, thread, time.Now())
		return err
	})
	if err != nil {
		return nil, withCtx(ctx, fmt.Errorf("sqlite: lease of thread %q: %w", thread, markCorrupt(err)))
	}
	return info, nil
}

// leaseRow reads the lease of thread that is live at now, or nil.
func leaseRow(ctx context.Context, tx *sql.Tx, thread string, now time.Time) (*checkpoint.LeaseInfo, error) {
	var holder string
	var since, expires int64
	err := tx.QueryRowContext(ctx, `SELECT holder, since, expires FROM leases WHERE thread_id = ? AND expires > ?`,
		thread, now.UnixNano()).Scan(&holder, &since, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &checkpoint.LeaseInfo{Thread: thread, Holder: holder, Since: time.Unix(0, since), Expires: time.Unix(0, expires)}, nil
}

// Renew extends the lease to its ttl from now.
func (l *sqlLease) Renew(ctx context.Context) error {
	expires := time.Now().Add(l.ttl)
	if err := l.change(ctx, "renew", `UPDATE leases SET expires = ? WHERE thread_id = ? AND token = ?`, expires.UnixNano()); err != nil {
		return err
	}
	l.mu.Lock()
	l.info.Expires = expires
	l.mu.Unlock()
	return nil
}

// Release gives the lease up.
func (l *sqlLease) Release(ctx context.Context) error {
	return l.change(ctx, "release", `DELETE FROM leases WHERE thread_id = ? AND token = ?`)
}

// change runs query on the lease's row (its last two parameters are the
// thread and the token), failing with ErrLeaseLost when the row is gone.
func (l *sqlLease) change(ctx context.Context, op, query string, args ...any) error {
	var n int64
	err := l.s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, append(args, l.info.Thread, l.token)...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return withCtx(ctx, fmt.Errorf("sqlite: %s lease of thread %q: %w", op, l.info.Thread, markCorrupt(err)))
	}
	if n == 0 {
		return checkpoint.LeaseLostError(l.info.Thread, l.info.Holder)
	}
	return nil
}

// Info describes the lease as last taken or renewed.
func (l *sqlLease) Info() checkpoint.LeaseInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

var _ checkpoint.LeaseBreaker = (*Saver)(nil)

// BreakLease removes the lease of thread if holder holds it (see
// checkpoint.LeaseBreaker).
func (s *Saver) BreakLease(ctx context.Context, thread, holder string) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE thread_id = ? AND holder = ?`, thread, holder)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, withCtx(ctx, fmt.Errorf("sqlite: break lease of thread %q (holder %s): %w", thread, holder, markCorrupt(err)))
	}
	return n > 0, nil
}
