package retentiontest

import (
	"sync"
	"time"

	"github.com/stategraph/stategraph/retention"
)

// Clock is a retention.Clock that reads a time the test sets and ticks
// only when the test calls Tick.
type Clock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*ticker
	made    chan time.Duration
}

// NewClock returns a clock that reads t until moved.
func NewClock(t time.Time) *Clock { return &Clock{now: t, made: make(chan time.Duration, 16)} }

// Now implements retention.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// NewTicker implements retention.Clock. Its ticker ticks only on Tick.
func (c *Clock) NewTicker(d time.Duration) retention.Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &ticker{c: make(chan time.Time)}
	c.tickers = append(c.tickers, t)
	c.made <- d
	return t
}

// Tickers receives the period of each ticker made, as it is made: a test
// waits on it to know the loop under test is ready for Tick.
func (c *Clock) Tickers() <-chan time.Duration { return c.made }

// Tick delivers the current time to the newest ticker, and returns once
// its reader took it.
func (c *Clock) Tick() {
	c.mu.Lock()
	t := c.tickers[len(c.tickers)-1]
	now := c.now
	c.mu.Unlock()
	t.c <- now
}

type ticker struct{ c chan time.Time }

func (t *ticker) C() <-chan time.Time { return t.c }

func (t *ticker) Stop() {}
