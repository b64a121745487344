package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultWriteTimeout is how long Put and PutWrites let the database work
// on their statement before they ask it to cancel the statement (see
// WithWriteTimeout).
const DefaultWriteTimeout = 30 * time.Second

// cancelGrace bounds the cancel request of a write, and how much longer
// than the write timeout a write waits for the database's answer before it
// gives up on the connection.
const cancelGrace = 10 * time.Second

// codeQueryCanceled is the error code of a statement cancelled by a
// cancel request.
const codeQueryCanceled = "57014"

// WithWriteTimeout bounds how long Put and PutWrites wait for their
// statement (DefaultWriteTimeout without it). When it passes, or when the
// caller's context is cancelled, the Saver asks PostgreSQL to cancel the
// statement and waits for its answer, so the call still reports what
// happened. A d of zero or less means DefaultWriteTimeout.
func WithWriteTimeout(d time.Duration) Option {
	return func(s *Saver) { s.writeTimeout = d }
}

// settled runs one write statement (fn, on a connection of its own) so
// that its outcome is known when it returns: a call that returns an error
// stored nothing, and a call that stored something returns nil.
//
// pgx reacts to a cancelled context by giving up on the connection at
// once while its cancel request travels to the server, which may still
// commit the statement afterwards. So fn runs under a context detached
// from ctx's cancellation; when ctx is done (or the write timeout passes),
// settled sends the cancel request itself and keeps reading the
// connection: the server then either finishes the statement (fn returns
// nil, and so does settled) or aborts it (fn fails, and the error wraps
// ctx's error). A connection a cancel request was sent on is closed, not
// returned to the pool, so a late request cannot cancel another statement.
// Only if the server does not answer within the timeout and cancelGrace
// is the outcome unknown, as with any lost connection.
func (s *Saver) settled(ctx context.Context, fn func(ctx context.Context, conn *pgxpool.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return withCtx(ctx, err)
	}
	timeout := s.writeTimeout
	if timeout <= 0 {
		timeout = DefaultWriteTimeout
	}
	detached, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout+cancelGrace)
	defer cancel()

	// A cancel request is sent at most once, when ctx is done or the
	// timeout passes while fn runs. Callbacks, not a goroutine: a write
	// that nobody cancels costs two registrations.
	var (
		mu       sync.Mutex
		finished bool  // fn returned: nothing to cancel
		reason   error // why a cancel request was sent, or nil
		sending  sync.WaitGroup
	)
	fire := func(why error) {
		mu.Lock()
		if finished || reason != nil {
			mu.Unlock()
			return
		}
		reason = why
		sending.Add(1)
		mu.Unlock()
		defer sending.Done()
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
		_ = conn.Conn().PgConn().CancelRequest(cctx) // the answer on conn tells what happened
		ccancel()
	}
	stopCtx := context.AfterFunc(ctx, func() {
		why := ctx.Err()
		if why == nil {
			why = context.Canceled
		}
		fire(why)
	})
	timer := time.AfterFunc(timeout, func() { fire(context.DeadlineExceeded) })

	err = fn(detached, conn)
	stopCtx()
	timer.Stop()
	mu.Lock()
	finished = true
	mu.Unlock()
	sending.Wait() // a request on its way must not outlive the connection
	if reason == nil {
		conn.Release()
		return err
	}
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	_ = conn.Hijack().Close(cctx)
	ccancel()
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code != codeQueryCanceled {
		return err // an answer of its own (a conflict, a missing checkpoint)
	}
	return fmt.Errorf("%w (%w)", err, reason)
}

// withCtx makes an error that a done context caused wrap the context's
// error.
func withCtx(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}
