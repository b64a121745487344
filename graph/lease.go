package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// One writer per thread. A run takes its thread twice before it stores
// anything: in this process (threadLocks, compile.go), then in the
// checkpoint database, when the saver is a checkpoint.Leaser. The lease
// is renewed by a heartbeat off the step path, and released when the run
// ends; a run whose lease was lost stops before it stores more.

// DefaultLeaseTTL is how long a run's lease on its thread lasts without
// renewal unless WithLease says otherwise: a process that dies holding a
// thread keeps other runs out of it for at most this long.
const DefaultLeaseTTL = 15 * time.Second

// WithLease sets the ttl of the lease a run takes on its thread in a
// saver that is a checkpoint.Leaser (DefaultLeaseTTL when ttl <= 0). The
// run renews the lease every ttl/3; a lease not renewed for ttl (its
// process died or lost the database) may be taken by another run.
func WithLease(ttl time.Duration) CompileOption {
	return func(o *compileOptions) { o.leaseTTL = ttl }
}

// leaseWaitMax bounds the pause between two tries of a waiting run.
const leaseWaitMax = time.Second

// hostname is this machine's name, for lease holders.
var hostname = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
})

// holderName names the holder of a run's lease: host, process and run.
func holderName(runID string) string {
	return hostname() + ":" + strconv.Itoa(os.Getpid()) + ":" + runID
}

// IsRunLeaseHolder reports whether holder (a checkpoint.LeaseInfo.Holder)
// names the lease of a run with id runID, taken in any process: holders
// are "host:pid:runID". A worker that takes over a dead worker's run frees
// the lease the run's last execution left (checkpoint.LeaseBreaker).
func IsRunLeaseHolder(holder, runID string) bool {
	return runID != "" && strings.HasSuffix(holder, ":"+runID)
}

// busyError is the error of a run on a thread another run holds. It
// matches checkpoint.ErrBusy (and, with errors.As, *checkpoint.BusyError)
// and, as the in-process refusal always did, checkpoint.ErrConflict.
type busyError struct {
	b *checkpoint.BusyError
}

func (e *busyError) Error() string {
	return fmt.Sprintf("graph: thread %q is busy: held by %s since %s", e.b.Thread, e.b.Holder, e.b.Since.UTC().Format(time.RFC3339Nano))
}

func (e *busyError) Unwrap() error { return e.b }

func (e *busyError) Is(target error) bool { return target == checkpoint.ErrConflict }

// takeLease takes thread's lease in saver for holder, waiting for it with
// backoff when wait is set (bounded by ctx). It returns nil when the saver
// is not a Leaser.
func (c *Compiled[S]) takeLease(ctx context.Context, saver checkpoint.Saver, thread, holder string, wait bool) (checkpoint.Lease, error) {
	l, ok := saver.(checkpoint.Leaser)
	if !ok {
		return nil, nil
	}
	pause := 5 * time.Millisecond
	var last *checkpoint.BusyError // the holder the run is waiting for
	gaveUp := func() error {
		return fmt.Errorf("graph: waiting for thread %q (held by %s since %s): %w",
			thread, last.Holder, last.Since.UTC().Format(time.RFC3339Nano), ctx.Err())
	}
	for {
		ls, err := l.Lease(ctx, thread, holder, c.leaseTTL)
		if err == nil {
			return ls, nil
		}
		var be *checkpoint.BusyError
		switch {
		case errors.As(err, &be):
		case errors.Is(err, checkpoint.ErrBusy): // busy, holder unknown
			be = &checkpoint.BusyError{LeaseInfo: checkpoint.LeaseInfo{Thread: thread, Holder: "another run", Since: time.Now()}}
		case last != nil && ctx.Err() != nil:
			return nil, gaveUp() // the wait ended during a try
		default:
			return nil, fmt.Errorf("graph: thread %q: take its lease: %w", thread, err)
		}
		if !wait {
			return nil, &busyError{b: be}
		}
		last = be
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, gaveUp()
		}
		pause = min(2*pause, leaseWaitMax, c.leaseTTL)
	}
}

// releaseLease gives a lease up, within saveTimeout even when ctx is done.
func releaseLease(ctx context.Context, ls checkpoint.Lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	// A lease lost or not released expires: nothing more to do here.
	_ = ls.Release(ctx)
}

// leaseKeeper renews a run's lease until the run ends.
type leaseKeeper struct {
	lease checkpoint.Lease
	ttl   time.Duration
	stop  chan struct{}
	done  chan struct{}
	lost  atomic.Pointer[error]
}

// keepLease starts the heartbeat of lease; on a loss it cancels the run
// with the loss as cause.
func keepLease(ls checkpoint.Lease, ttl time.Duration, cancel context.CancelCauseFunc) *leaseKeeper {
	k := &leaseKeeper{lease: ls, ttl: ttl, stop: make(chan struct{}), done: make(chan struct{})}
	go k.beat(cancel)
	return k
}

func (k *leaseKeeper) beat(cancel context.CancelCauseFunc) {
	defer close(k.done)
	every := max(k.ttl/3, time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-k.stop:
			return
		case <-tick.C:
		}
		ctx, stop := context.WithTimeout(context.Background(), every)
		err := k.lease.Renew(ctx)
		stop()
		if err == nil {
			renewed = time.Now()
			continue
		}
		// A renewal that failed for another reason (the database is
		// unreachable) is tried again, until the lease may have expired.
		if errors.Is(err, checkpoint.ErrLeaseLost) || time.Since(renewed) >= k.ttl {
			info := k.lease.Info()
			lerr := fmt.Errorf("graph: thread %q: the run lost its lease (holder %s) and stopped before storing more: %w",
				info.Thread, info.Holder, err)
			if !errors.Is(lerr, checkpoint.ErrLeaseLost) {
				lerr = fmt.Errorf("%w: %w", lerr, checkpoint.ErrLeaseLost)
			}
			k.lost.Store(&lerr)
			cancel(lerr)
			return
		}
	}
}

// err is the loss of the lease, or nil while it is held (or there is no
// lease).
func (k *leaseKeeper) err() error {
	if k == nil {
		return nil
	}
	if p := k.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// end stops the heartbeat and releases the lease.
func (k *leaseKeeper) end(ctx context.Context) {
	close(k.stop)
	<-k.done
	if k.err() == nil {
		releaseLease(ctx, k.lease)
	}
}
