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
	{name: "SecondHolderIsBusy", fn: testLeaseSecondHolderIsBusy},
	{name: "ConcurrentLeasesOneWins", fn: testLeaseConcurrentOneWins},
	{name: "ExpiryLetsAnotherTakeIt", fn: testLeaseExpiryLetsAnotherTakeIt},
	{name: "RenewKeepsIt", fn: testLeaseRenewKeepsIt},
	{name: "ReleaseFreesIt", fn: testLeaseReleaseFreesIt},
	{name: "LeaseOfNamesTheHolder", fn: testLeaseOfNamesTheHolder},
	{name: "ThreadsAreIndependent", fn: testLeaseThreadsAreIndependent},
	{name: "RefusesBadArguments", fn: testLeaseRefusesBadArguments},
	{name: "HeldAcrossReopen", fnh: testLeaseHeldAcrossReopen},
	{name: "BreakFreesOnlyTheNamedHolder", fn: testLeaseBreakFreesOnlyTheNamedHolder},
	{name: "BreakFencesTheHolder", fn: testLeaseBreakFencesTheHolder},
	{name: "BreakFreesAnExpiredLease", fn: testLeaseBreakFreesAnExpiredLease},
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
// unless the case waits for it.
const leaseTTL = time.Minute

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

// waitExpired retries Lease until the lease ttl ago expires; it fails the
// test after a generous bound.
func waitExpired(tb testing.TB, l checkpoint.Leaser, thread, holder string) checkpoint.Lease {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ls, err := l.Lease(context.Background(), thread, holder, leaseTTL)
		if err == nil {
			return ls
		}
		require.ErrorIs(tb, err, checkpoint.ErrBusy)
		if time.Now().After(deadline) {
			tb.Fatalf("the lease of %q never expired: %v", thread, err)
		}
		time.Sleep(5 * time.Millisecond) // the clock must pass the expiry
	}
}

func testLeaseSecondHolderIsBusy(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
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

func testLeaseConcurrentOneWins(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
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

func testLeaseExpiryLetsAnotherTakeIt(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
	thread := newThreadID()
	a := mustLease(t, l, thread, "a", 50*time.Millisecond)
	b := waitExpired(t, l, thread, "b")
	require.Equal(t, "b", b.Info().Holder)
	// The first holder finds it lost and cannot take it back or free it.
	require.ErrorIs(t, a.Renew(context.Background()), checkpoint.ErrLeaseLost)
	require.ErrorIs(t, a.Release(context.Background()), checkpoint.ErrLeaseLost)
	_, err := l.Lease(context.Background(), thread, "a", leaseTTL)
	requireBusy(t, err, thread, "b")
	require.NoError(t, b.Renew(context.Background()))
}

func testLeaseRenewKeepsIt(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
	thread := newThreadID()
	const ttl = 400 * time.Millisecond
	a := mustLease(t, l, thread, "a", ttl)
	first := a.Info().Expires
	// Renewed at a quarter of its ttl, the lease outlives twice its ttl.
	until := time.Now().Add(2 * ttl)
	tick := time.NewTicker(ttl / 4)
	defer tick.Stop()
	for time.Now().Before(until) {
		<-tick.C
		require.NoError(t, a.Renew(context.Background()))
	}
	require.True(t, a.Info().Expires.After(first), "Renew moved the expiry")
	_, err := l.Lease(context.Background(), thread, "b", leaseTTL)
	requireBusy(t, err, thread, "a")
	require.NoError(t, a.Release(context.Background()))
}

func testLeaseReleaseFreesIt(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
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

func testLeaseOfNamesTheHolder(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
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
	waitExpired(t, l, thread, "after").Release(ctx) //nolint:errcheck // checked below
	info, err = l.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "an expired lease is not shown")
	require.ErrorIs(t, short.Renew(ctx), checkpoint.ErrLeaseLost)
}

func testLeaseThreadsAreIndependent(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
	t1, t2 := newThreadID(), newThreadID()
	a := mustLease(t, l, t1, "a", leaseTTL)
	b := mustLease(t, l, t2, "b", leaseTTL)
	require.NoError(t, a.Release(context.Background()))
	_, err := l.Lease(context.Background(), t2, "c", leaseTTL)
	requireBusy(t, err, t2, "b")
	require.NoError(t, b.Release(context.Background()))
}

func testLeaseRefusesBadArguments(t *testing.T, s checkpoint.Saver) {
	l := leaser(t, s)
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
	l := leaser(t, s)
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

func testLeaseBreakFreesOnlyTheNamedHolder(t *testing.T, s checkpoint.Saver) {
	l, br := leaser(t, s), breaker(t, s)
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

func testLeaseBreakFencesTheHolder(t *testing.T, s checkpoint.Saver) {
	l, br := leaser(t, s), breaker(t, s)
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

func testLeaseBreakFreesAnExpiredLease(t *testing.T, s checkpoint.Saver) {
	l, br := leaser(t, s), breaker(t, s)
	ctx := context.Background()
	thread := newThreadID()
	a := mustLease(t, l, thread, "late", 20*time.Millisecond)
	require.Eventually(t, func() bool {
		info, err := l.LeaseOf(ctx, thread)
		return err == nil && info == nil
	}, 10*time.Second, 5*time.Millisecond, "the lease expires")
	ok, err := br.BreakLease(ctx, thread, "late")
	require.NoError(t, err)
	require.True(t, ok, "an expired lease of the holder is removed as well")
	require.ErrorIs(t, a.Renew(ctx), checkpoint.ErrLeaseLost, "and cannot be renewed after")
}
