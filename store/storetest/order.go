package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

// The order cases: a record's times follow the order its writes commit
// in, not the clocks of the handles that wrote them. Two handles (two
// processes, or two goroutines whose clocks were read before the driver
// serialized their writes) may put one key with their clocks in either
// order; whatever the order, created_at <= updated_at, and the put that
// committed last has the latest updated_at.
var orderTests = []test{
	{name: "ALaterCommitWithAnEarlierClockIsStillTheNewest", fn: func(t *testing.T, e *env) {
		ns := []string{"order"}
		early := NewClock(t0)
		other := e.second(t, early)
		e.clock.Advance(10 * time.Second)
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{"by": "first"}))
		first, err := e.s.Get(e.ctx, ns, "k")
		require.NoError(t, err)
		// The second handle read its clock before the first committed.
		require.NoError(t, other.Put(e.ctx, ns, "k", obj{"by": "second"}))
		for _, s := range []*store.Store{e.s, other} {
			it, err := s.Get(e.ctx, ns, "k")
			require.NoError(t, err)
			require.Equal(t, "second", it.Value["by"])
			require.True(t, it.CreatedAt.Equal(first.CreatedAt), "the creation time is the first put's: %v", it.CreatedAt)
			require.False(t, it.CreatedAt.After(it.UpdatedAt), "created %v after updated %v", it.CreatedAt, it.UpdatedAt)
			require.True(t, it.UpdatedAt.After(first.UpdatedAt), "the last commit is the newest: %v, not after %v", it.UpdatedAt, first.UpdatedAt)
		}
		// Search reports the same times.
		items, err := other.Search(e.ctx, ns, store.SearchOptions{})
		require.NoError(t, err)
		require.Len(t, items, 1)
		require.False(t, items[0].CreatedAt.After(items[0].UpdatedAt))
	}},
	{name: "ConcurrentPutsOnTwoHandlesKeepTimesInOrder", fn: func(t *testing.T, e *env) {
		ns := []string{"order"}
		// The second handle's clock is half a millisecond behind the
		// first's; each round both move on and race to put the key.
		lag := NewClock(t0.Add(-500 * time.Microsecond))
		other := e.second(t, lag)
		const rounds = 20
		var latest time.Time
		created := time.Time{}
		for i := range rounds {
			e.clock.Advance(time.Millisecond)
			lag.Advance(time.Millisecond)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for _, s := range []*store.Store{e.s, other} {
				wg.Go(func() {
					<-start
					require.NoError(t, s.Put(e.ctx, ns, "k", obj{"round": i}))
				})
			}
			close(start)
			wg.Wait()
			it, err := other.Get(e.ctx, ns, "k")
			require.NoError(t, err)
			if i == 0 {
				created = it.CreatedAt
			}
			require.True(t, it.CreatedAt.Equal(created), "round %d: the creation time is the first put's: %v", i, it.CreatedAt)
			require.False(t, it.CreatedAt.After(it.UpdatedAt), "round %d: created %v after updated %v", i, it.CreatedAt, it.UpdatedAt)
			require.True(t, it.UpdatedAt.After(latest), "round %d: updated %v, not after the last round's %v", i, it.UpdatedAt, latest)
			require.False(t, it.UpdatedAt.Before(e.clock.Now()), "round %d: the last commit (%v) is not older than either put of the round", i, it.UpdatedAt)
			latest = it.UpdatedAt
		}
	}},
}

// second returns a second handle on e's storage whose clock is clock:
// the harness's Reopen, or, for a driver that keeps nothing outside the
// process, a case of its own is skipped.
func (e *env) second(t *testing.T, clock *Clock) *store.Store {
	t.Helper()
	if e.h.Reopen == nil {
		t.Skip("no second handle on the storage (no Harness.Reopen)")
	}
	return e.h.Reopen(t, e.s, store.WithClock(clock.Now))
}
