package retention

import "time"

// Clock is the time a Sweeper reads and ticks by; tests give one they
// move by hand.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker delivers ticks on C until stopped, as time.Ticker does.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// SystemClock returns the clock of package time.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTicker(d time.Duration) Ticker { return systemTicker{time.NewTicker(d)} }

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }

func (t systemTicker) Stop() { t.t.Stop() }
