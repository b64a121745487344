package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/procid"
)

var _ checkpoint.Leaser = (*Saver)(nil)

// A lease is a row of the leases table, taken in a write transaction, so
// that of two processes on one file one takes it. Times are the lease
// clock's (the local clock unless WithLeaseClock): the processes that
// share a SQLite file share a machine.
//
// The row's token is the lease's id, a space, and the procid of the
// process that took it. That process is known on this machine: a lease
// whose process has ended (killed, crashed) is not live, whatever its
// expiry, so a restarted process takes its thread at once. A token
// without a process (written by an earlier release) ends by expiry only.

// leaseState is what a Saver knows of leases beyond their rows.
type leaseState struct {
	now func() time.Time // nil: time.Now
	// dropped holds the tokens of leases this Saver gave up without
	// deleting their rows (Release failed: a full disk): they are not
	// live for this Saver, which takes their threads over.
	dropped sync.Map
}

func (ls *leaseState) clock() time.Time {
	if ls.now != nil {
		return ls.now()
	}
	return time.Now()
}

// WithLeaseClock makes the Saver read the time of its leases (taken,
// renewed, expired) from now instead of the local clock: tests move it
// rather than wait for it.
func WithLeaseClock(now func() time.Time) Option { return func(o *options) { o.leaseNow = now } }

// sqlLease is a lease of the SQLite saver; token tells it from a later
// lease of the same thread.
type sqlLease struct {
	s     *Saver
	token string
	ttl   time.Duration
	mu    sync.Mutex
	info  checkpoint.LeaseInfo
}

// leaseToken is a new lease's token: its id and this process.
func leaseToken() string { return checkpoint.NewID() + " " + procid.Self() }

// live reports whether the lease row of token, unexpired, still holds:
// its process runs (or cannot be known on this machine) and this Saver
// did not give it up.
func (s *Saver) live(token string) bool {
	if _, gone := s.leases.dropped.Load(token); gone {
		return false
	}
	_, proc, ok := strings.Cut(token, " ")
	return !ok || !procid.Gone(proc)
}

// Lease takes the lease on thread for holder (see checkpoint.Leaser). A
// lease whose process has ended is taken over at once.
func (s *Saver) Lease(ctx context.Context, thread, holder string, ttl time.Duration) (checkpoint.Lease, error) {
	if err := checkpoint.CheckLease(thread, holder, ttl); err != nil {
		return nil, err
	}
	l := &sqlLease{s: s, token: leaseToken(), ttl: ttl}
	var busy *checkpoint.BusyError
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.leases.clock()
		cur, err := s.leaseRow(ctx, tx, thread, now)
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
		info, err = s.leaseRow(ctx, tx, thread, s.leases.clock())
		return err
	})
	if err != nil {
		return nil, withCtx(ctx, fmt.Errorf("sqlite: lease of thread %q: %w", thread, markCorrupt(err)))
	}
	return info, nil
}

// leaseRow reads the lease of thread that is live at now, or nil.
func (s *Saver) leaseRow(ctx context.Context, tx *sql.Tx, thread string, now time.Time) (*checkpoint.LeaseInfo, error) {
	var token, holder string
	var since, expires int64
	err := tx.QueryRowContext(ctx, `SELECT token, holder, since, expires FROM leases WHERE thread_id = ? AND expires > ?`,
		thread, now.UnixNano()).Scan(&token, &holder, &since, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !s.live(token) {
		return nil, nil
	}
	return &checkpoint.LeaseInfo{Thread: thread, Holder: holder, Since: time.Unix(0, since), Expires: time.Unix(0, expires)}, nil
}

// Renew extends the lease to its ttl from now.
func (l *sqlLease) Renew(ctx context.Context) error {
	expires := l.s.leases.clock().Add(l.ttl)
	if err := l.change(ctx, "renew", `UPDATE leases SET expires = ? WHERE thread_id = ? AND token = ?`, expires.UnixNano()); err != nil {
		return err
	}
	l.mu.Lock()
	l.info.Expires = expires
	l.mu.Unlock()
	return nil
}

// Release gives the lease up. When its row cannot be deleted (the disk is
// full), the Saver still counts it given up: its next Lease of the thread
// takes it over, rather than wait for its expiry.
func (l *sqlLease) Release(ctx context.Context) error {
	err := l.change(ctx, "release", `DELETE FROM leases WHERE thread_id = ? AND token = ?`)
	if err != nil && !errors.Is(err, checkpoint.ErrLeaseLost) {
		l.s.leases.dropped.Store(l.token, struct{}{})
	}
	return err
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
