package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors of a Leaser. Check them with errors.Is.
var (
	// ErrBusy: another holder has the thread's lease, and it has not
	// expired. The error is a *BusyError naming the holder.
	ErrBusy = errors.New("checkpoint: thread is busy")
	// ErrLeaseLost: Renew or Release of a lease that is no longer held:
	// it expired and another holder took it, or it was released.
	ErrLeaseLost = errors.New("checkpoint: lease lost")
)

// Leaser is implemented by savers that can keep one writer per thread
// across processes and machines: a lease on a thread, stored beside its
// checkpoints, held by one holder at a time until it is released or
// expires. The graph runtime takes it before a run stores anything and
// renews it while the run lasts (see graph.WithLease).
//
// Expiry is by time: a lease not renewed within its ttl may be taken by
// another holder. A backend shared by machines reads one clock (the
// database server's), so their clocks need not agree.
type Leaser interface {
	// Lease takes the lease on thread for holder (a name shown to others:
	// host, process, run) for ttl. It fails with a *BusyError when another
	// lease on the thread is held and has not expired; an expired one is
	// taken over. Each call makes a new lease: two calls with the same
	// holder are two holders.
	Lease(ctx context.Context, thread, holder string, ttl time.Duration) (Lease, error)
	// LeaseOf returns the live lease of thread, or nil when none is held
	// (none was taken, it was released, or it expired).
	LeaseOf(ctx context.Context, thread string) (*LeaseInfo, error)
}

// LeaseBreaker is implemented by Leasers that let a lease be freed by
// someone other than its holder: one who has established that the holder
// is gone (a worker that takes over the runs of a worker whose heartbeat
// stopped). The holder, should it come back, finds its lease lost on its
// next renewal and stops before it stores more.
type LeaseBreaker interface {
	// BreakLease removes the lease of thread if its holder is holder,
	// expired or not, and reports whether it removed one. A lease of
	// another holder (taken since) is left alone.
	BreakLease(ctx context.Context, thread, holder string) (bool, error)
}

// Lease is a held lease on a thread.
type Lease interface {
	// Renew extends the lease to ttl from now. It fails with ErrLeaseLost
	// when the lease was taken by another holder or released; a lease
	// that expired but was not taken is renewed.
	Renew(ctx context.Context) error
	// Release gives the lease up, so another holder may take it at once.
	// Releasing a lease no longer held is ErrLeaseLost and changes nothing.
	Release(ctx context.Context) error
	// Info describes the lease as it was last taken or renewed.
	Info() LeaseInfo
}

// LeaseInfo describes a lease: whose it is, since when, and until when it
// holds unless renewed.
type LeaseInfo struct {
	Thread  string    `json:"thread_id"`
	Holder  string    `json:"holder"`
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
}

// BusyError is the error of Lease on a thread another holder has. It
// matches ErrBusy with errors.Is.
type BusyError struct {
	LeaseInfo
}

// Error says which thread is busy, who holds it and since when.
func (e *BusyError) Error() string {
	return fmt.Sprintf("checkpoint: thread %q is busy: held by %s since %s (until %s unless renewed)",
		e.Thread, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339))
}

// Is reports whether target is ErrBusy.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// LeaseLostError is the error of Renew or Release of a lease no longer held.
func LeaseLostError(thread, holder string) error {
	return fmt.Errorf("%w: thread %q, holder %s", ErrLeaseLost, thread, holder)
}

// CheckLease validates the arguments of Leaser.Lease.
func CheckLease(thread, holder string, ttl time.Duration) error {
	switch {
	case thread == "":
		return errors.New("checkpoint: lease: empty thread id")
	case holder == "":
		return fmt.Errorf("checkpoint: lease on thread %q: empty holder", thread)
	case ttl <= 0:
		return fmt.Errorf("checkpoint: lease on thread %q: ttl %v is not positive", thread, ttl)
	}
	return nil
}
