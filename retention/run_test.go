package retention_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention"
)

// fakeClock is a retention.Clock the test moves and ticks by hand.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*fakeTicker
	made    chan struct{} // receives when a ticker is made
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t, made: make(chan struct{}, 1)} }

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

func (c *fakeClock) NewTicker(d time.Duration) retention.Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTicker{c: make(chan time.Time), every: d}
	c.tickers = append(c.tickers, t)
	select {
	case c.made <- struct{}{}:
	default:
	}
	return t
}

// tick delivers one tick to the clock's ticker, blocking until taken.
func (c *fakeClock) tick() {
	c.mu.Lock()
	t := c.tickers[len(c.tickers)-1]
	now := c.now
	c.mu.Unlock()
	t.c <- now
}

type fakeTicker struct {
	c     chan time.Time
	every time.Duration
}

func (t *fakeTicker) C() <-chan time.Time { return t.c }
func (t *fakeTicker) Stop()               {}

func TestRunSweepsAtEachTickUntilCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := memory.New()
	f := newFixture(t, s)
	f.mustPut("old", "", t0.Add(-40*day), 1)
	f.mustPut("young", "", t0.Add(-29*day), 1)
	clock := newFakeClock(t0)
	reports := make(chan retention.Report)
	sw, err := retention.New(s, retention.Policy{TTL: ttl}, retention.WithClock(clock), retention.WithInterval(time.Hour),
		retention.OnSweep(func(r retention.Report, err error) {
			require.NoError(t, err)
			reports <- r
		}))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sw.Run(ctx) }()

	<-clock.made
	require.Equal(t, time.Hour, clock.tickers[0].every)
	clock.tick()
	require.Equal(t, []string{"old"}, (<-reports).Deleted)
	clock.Advance(2 * day)
	clock.tick()
	require.Equal(t, []string{"young"}, (<-reports).Deleted)
	clock.tick()
	require.Empty(t, (<-reports).Deleted)

	cancel()
	require.True(t, errors.Is(<-done, context.Canceled))
}
