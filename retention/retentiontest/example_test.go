package retentiontest_test

import (
	"fmt"
	"time"

	"github.com/stategraph/stategraph/retention/retentiontest"
)

// A Clock moves only when told, so a test of retention.Sweeper.Run needs
// no sleep: it ticks, then waits for the sweep's report (see OnSweep).
func ExampleClock() {
	c := retentiontest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c.Advance(31 * 24 * time.Hour)
	fmt.Println(c.Now().Format(time.DateOnly))
	// Output: 2026-02-01
}
