package checkpointtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// The lease cases: one holder per thread, named to the others, until it
// releases the lease or stops renewing it for its ttl. They are skipped
// for a saver that is not a checkpoint.Leaser.
var leaseTests = []test{
	{name: "SecondHolderIsBusy", fnh: testLeaseSecondHolderIsBusy},
	{name: "ConcurrentLeasesOneWins", fnh: testLeaseConcurrentOneWins},
	{name: "ExpiryLetsAnotherTakeIt", fnh: testLeaseExpiryLetsAnotherTakeIt},
	{name: "RenewKeepsIt", fnh: testLeaseRenewKeepsIt},
	{name: "ReleaseFreesIt", fnh: testLeaseReleaseFreesIt},
	{name: "LeaseOfNamesTheHolder", fnh: testLeaseOfNamesTheHolder},
	{name: "ThreadsAreIndependent", fnh: testLeaseThreadsAreIndependent},
	{name: "RefusesBadArguments", fnh: testLeaseRefusesBadArguments},
	{name: "HeldAcrossReopen", fnh: testLeaseHeldAcrossReopen},
	{name: "BreakFreesOnlyTheNamedHolder", fnh: testLeaseBreakFreesOnlyTheNamedHolder},
	{name: "BreakFencesTheHolder", fnh: testLeaseBreakFencesTheHolder},
	{name: "BreakFreesAnExpiredLease", fnh: testLeaseBreakFreesAnExpiredLease},
}

// leaser returns s as a Leaser, or skips the test.
func leaser(t *testing.T, s checkpoint.Saver) checkpoint.Leaser {
	l, ok := s.(checkpoint.Leaser)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.Leaser", s)
	}
	return l
}

// leaseTTL is long enough that no case's lease expires while it runs,
// unless the case makes it expire.
const leaseTTL = time.Minute

// fakeClock is a lease clock that moves only when a case moves it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// leases is a lease case's saver and, when the harness can give it one,
// the clock its leases read.
type leases struct {
	checkpoint.Leaser
	saver checkpoint.Saver
	clock *fakeClock // nil: the saver's own clock (real time)
}

// leasesOf returns the saver a lease case uses: one on a fake clock when
// the harness has WithClock, else s.
func leasesOf(t *testing.T, s checkpoint.Saver, h *Harness) leases {
	if h.WithClock == nil {
		return leases{Leaser: leaser(t, s), saver: s}
	}
	clk := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	cs := h.WithClock(t, clk.Now)
	require.NotNil(t, cs, "Harness.WithClock returned nil")
	return leases{Leaser: leaser(t, cs), saver: cs, clock: clk}
}

// expire makes a lease of ttl taken before it expire, and takes the
// thread for holder. On a fake clock the lease is busy until the clock
// passes its expiry and free at once after; on real time expire retries
// until it is free, failing the test after a generous bound.
func (e leases) expire(tb testing.TB, thread, holder string, ttl time.Duration) checkpoint.Lease {
	tb.Helper()
	if e.clock != nil {
		e.clock.Advance(ttl - time.Nanosecond)
		_, err := e.Lease(context.Background(), thread, holder, leaseTTL)
		require.ErrorIs(tb, err, checkpoint.ErrBusy, "a lease holds until its expiry")
		e.clock.Advance(time.Nanosecond)
		return mustLease(tb, e, thread, holder, leaseTTL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ls, err := e.Lease(context.Background(), thread, holder, leaseTTL)
		if err == nil {
			return ls
		}
		require.ErrorIs(tb, err, checkpoint.ErrBusy)
		if time.Now().After(deadline) {
			tb.Fatalf("the lease of %q never expired: %v", thread, err)
		}
		time.Sleep(5 * time.Millisecond) // real time must pass the expiry: no clock to move
	}
}

func mustLease(tb testing.TB, l checkpoint.Leaser, thread, holder string, ttl time.Duration) checkpoint.Lease {
	tb.Helper()
	ls, err := l.Lease(context.Background(), thread, holder, ttl)
	require.NoError(tb, err, "lease %q for %s", thread, holder)
	require.NotNil(tb, ls)
	return ls
}

// requireBusy checks err is the busy error of thread held by holder.
func requireBusy(tb testing.TB, err error, thread, holder string) *checkpoint.BusyError {
	tb.Helper()
	require.ErrorIs(tb, err, checkpoint.ErrBusy)
	var be *checkpoint.BusyError
	require.ErrorAs(tb, err, &be, "the busy error is a *checkpoint.BusyError")
	require.Equal(tb, thread, be.Thread)
	require.Equal(tb, holder, be.Holder)
	require.ErrorContains(tb, err, holder, "the message names the holder")
	require.False(tb, be.Since.IsZero(), "the busy error says since when")
	require.False(tb, be.Expires.Before(be.Since))
	return be
}

func testLeaseSecondHolderIsBusy(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	a := mustLease(t, l, thread, "host-a:1:run-a", leaseTTL)
	_, err := l.Lease(context.Background(), thread, "host-b:2:run-b", leaseTTL)
	be := requireBusy(t, err, thread, "host-a:1:run-a")
	require.WithinDuration(t, a.Info().Since, be.Since, time.Millisecond, "since when the holder has it")
	// The same holder name again is another lease, refused as well.
	_, err = l.Lease(context.Background(), thread, "host-a:1:run-a", leaseTTL)
	requireBusy(t, err, thread, "host-a:1:run-a")
	require.NoError(t, a.Renew(context.Background()), "the refusals left the lease as it was")
}

func testLeaseConcurrentOneWins(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	const n = 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		won   []checkpoint.Lease
		busy  int
		other []error
	)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ls, err := l.Lease(context.Background(), thread, "holder-"+itoa(i), leaseTTL)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, ls)
			case errors.Is(err, checkpoint.ErrBusy):
				busy++
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Empty(t, other)
	require.Len(t, won, 1, "one holder takes the lease")
	require.Equal(t, n-1, busy)
	info, err := l.LeaseOf(context.Background(), thread)
	require.NoError(t, err)
	require.NotNil(t, info)
	require.Equal(t, won[0].Info().Holder, info.Holder)
}

func testLeaseExpiryLetsAnotherTakeIt(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	a := mustLease(t, l, thread, "a", 50*time.Millisecond)
	b := l.expire(t, thread, "b", 50*time.Millisecond)
	require.Equal(t, "b", b.Info().Holder)
	// The first holder finds it lost and cannot take it back or free it.
	require.ErrorIs(t, a.Renew(context.Background()), checkpoint.ErrLeaseLost)
	require.ErrorIs(t, a.Release(context.Background()), checkpoint.ErrLeaseLost)
	_, err := l.Lease(context.Background(), thread, "a", leaseTTL)
	requireBusy(t, err, thread, "b")
	require.NoError(t, b.Renew(context.Background()))
}

func testLeaseRenewKeepsIt(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	ctx := context.Background()
	if l.clock == nil {
		// Real time: a ttl no case outlives, renewed; the expiry moves
		// to a ttl from the renewal.
		a := mustLease(t, l, thread, "a", leaseTTL)
		first := a.Info().Expires
		before := time.Now()
		require.NoError(t, a.Renew(ctx))
		require.False(t, a.Info().Expires.Before(first), "Renew does not bring the expiry nearer")
		require.WithinDuration(t, before.Add(leaseTTL), a.Info().Expires, leaseTTL/2, "the expiry is a ttl from the renewal")
		_, err := l.Lease(ctx, thread, "b", leaseTTL)
		requireBusy(t, err, thread, "a")
		require.NoError(t, a.Release(ctx))
		return
	}
	const ttl = 400 * time.Millisecond
	a := mustLease(t, l, thread, "a", ttl)
	first := a.Info().Expires
	// Renewed every three quarters of its ttl, the lease outlives four
	// times its ttl; each renewal sets the expiry a ttl after it.
	for range 6 {
		l.clock.Advance(ttl * 3 / 4)
		require.NoError(t, a.Renew(ctx))
		require.Equal(t, l.clock.Now().Add(ttl), a.Info().Expires, "the expiry is a ttl from the renewal")
		_, err := l.Lease(ctx, thread, "b", leaseTTL)
		requireBusy(t, err, thread, "a")
	}
	require.True(t, a.Info().Expires.After(first.Add(3*ttl)), "Renew moved the expiry")
	// Not renewed for its ttl, it expires.
	b := l.expire(t, thread, "b", ttl)
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost)
	require.NoError(t, b.Release(ctx))
}

func testLeaseReleaseFreesIt(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	a := mustLease(t, l, thread, "a", leaseTTL)
	require.NoError(t, a.Release(context.Background()))
	b := mustLease(t, l, thread, "b", leaseTTL)
	require.ErrorIs(t, a.Release(context.Background()), checkpoint.ErrLeaseLost, "a second release changes nothing")
	require.ErrorIs(t, a.Renew(context.Background()), checkpoint.ErrLeaseLost)
	info, err := l.LeaseOf(context.Background(), thread)
	require.NoError(t, err)
	require.NotNil(t, info)
	require.Equal(t, "b", info.Holder, "the old lease's release did not free the new one")
	require.NoError(t, b.Release(context.Background()))
}

func testLeaseOfNamesTheHolder(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	ctx := context.Background()
	info, err := l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "no lease on a new thread")
	a := mustLease(t, l, thread, "host:42:run", leaseTTL)
	info, err = l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.NotNil(t, info)
	require.Equal(t, checkpoint.LeaseInfo{Thread: thread, Holder: "host:42:run", Since: info.Since, Expires: info.Expires}, *info)
	require.WithinDuration(t, a.Info().Since, info.Since, time.Millisecond)
	require.WithinDuration(t, info.Since.Add(leaseTTL), info.Expires, time.Second, "expires a ttl after it was taken")
	require.NoError(t, a.Release(ctx))
	info, err = l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "no lease once released")

	short := mustLease(t, l, thread, "short", 20*time.Millisecond)
	require.NoError(t, l.expire(t, thread, "after", 20*time.Millisecond).Release(ctx))
	info, err = l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "an expired lease is not shown")
	require.ErrorIs(t, short.Renew(ctx), checkpoint.ErrLeaseLost)
}

func testLeaseThreadsAreIndependent(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	t1, t2 := newThreadID(), newThreadID()
	a := mustLease(t, l, t1, "a", leaseTTL)
	b := mustLease(t, l, t2, "b", leaseTTL)
	require.NoError(t, a.Release(context.Background()))
	_, err := l.Lease(context.Background(), t2, "c", leaseTTL)
	requireBusy(t, err, t2, "b")
	require.NoError(t, b.Release(context.Background()))
}

func testLeaseRefusesBadArguments(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	thread := newThreadID()
	for _, c := range []struct {
		name, thread, holder string
		ttl                  time.Duration
	}{
		{"empty thread", "", "a", leaseTTL},
		{"empty holder", thread, "", leaseTTL},
		{"zero ttl", thread, "a", 0},
		{"negative ttl", thread, "a", -time.Second},
	} {
		_, err := l.Lease(context.Background(), c.thread, c.holder, c.ttl)
		require.Error(t, err, c.name)
		require.NotErrorIs(t, err, checkpoint.ErrBusy, c.name)
	}
	info, err := l.LeaseOf(context.Background(), thread)
	require.NoError(t, err)
	require.Nil(t, info, "a refused lease is not held")
}

func testLeaseHeldAcrossReopen(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leaser(t, s) // the reopened saver reads the real clock
	if h.Reopen == nil {
		t.Skip("checkpointtest: Harness.Reopen is nil")
	}
	other, ok := h.Reopen(t, s).(checkpoint.Leaser)
	require.True(t, ok, "the reopened saver is a Leaser too")
	thread := newThreadID()
	a := mustLease(t, l, thread, "first-process", leaseTTL)
	_, err := other.Lease(context.Background(), thread, "second-process", leaseTTL)
	requireBusy(t, err, thread, "first-process")
	info, err := other.LeaseOf(context.Background(), thread)
	require.NoError(t, err)
	require.NotNil(t, info)
	require.Equal(t, "first-process", info.Holder)
	require.NoError(t, a.Release(context.Background()))
	b := mustLease(t, other, thread, "second-process", leaseTTL)
	require.NoError(t, b.Release(context.Background()))
}

// breaker returns s as a LeaseBreaker, or skips the test.
func breaker(t *testing.T, s checkpoint.Saver) checkpoint.LeaseBreaker {
	b, ok := s.(checkpoint.LeaseBreaker)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.LeaseBreaker", s)
	}
	return b
}

func testLeaseBreakFreesOnlyTheNamedHolder(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	br := breaker(t, l.saver)
	ctx := context.Background()
	thread := newThreadID()
	a := mustLease(t, l, thread, "host-a:1:run-a", leaseTTL)
	ok, err := br.BreakLease(ctx, thread, "host-b:2:run-b")
	require.NoError(t, err)
	require.False(t, ok, "another holder's lease is left alone")
	ok, err = br.BreakLease(ctx, newThreadID(), "host-a:1:run-a")
	require.NoError(t, err)
	require.False(t, ok, "no lease on another thread")
	require.NoError(t, a.Renew(ctx), "the lease is still held")

	ok, err = br.BreakLease(ctx, thread, "host-a:1:run-a")
	require.NoError(t, err)
	require.True(t, ok)
	info, err := l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "no lease once broken")
	b := mustLease(t, l, thread, "host-b:2:run-b", leaseTTL)
	ok, err = br.BreakLease(ctx, thread, "host-a:1:run-a")
	require.NoError(t, err)
	require.False(t, ok, "breaking twice does not free the next holder's lease")
	require.NoError(t, b.Release(ctx))
}

func testLeaseBreakFencesTheHolder(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	br := breaker(t, l.saver)
	ctx := context.Background()
	thread := newThreadID()
	a := mustLease(t, l, thread, "gone", leaseTTL)
	ok, err := br.BreakLease(ctx, thread, "gone")
	require.NoError(t, err)
	require.True(t, ok)
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost, "the holder finds its lease lost")
	require.ErrorIs(t, a.Release(ctx), checkpoint.ErrLeaseLost)
	b := mustLease(t, l, thread, "next", leaseTTL)
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost, "nor can it take the next holder's")
	require.NoError(t, b.Renew(ctx))
	require.NoError(t, b.Release(ctx))
}

func testLeaseBreakFreesAnExpiredLease(t *testing.T, s checkpoint.Saver, h *Harness) {
	l := leasesOf(t, s, h)
	br := breaker(t, l.saver)
	ctx := context.Background()
	thread := newThreadID()
	a := mustLease(t, l, thread, "late", 20*time.Millisecond)
	if l.clock != nil {
		l.clock.Advance(20 * time.Millisecond)
	} else {
		require.Eventually(t, func() bool {
			info, err := l.LeaseOf(ctx, thread)
			return err == nil && info == nil
		}, 10*time.Second, 5*time.Millisecond, "the lease expires")
	}
	info, err := l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "an expired lease is not shown")
	ok, err := br.BreakLease(ctx, thread, "late")
	require.NoError(t, err)
	require.True(t, ok, "an expired lease of the holder is removed as well")
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost, "and cannot be renewed after")
}
