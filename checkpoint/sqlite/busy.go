package sqlite

import (
	"context"
	"errors"
	"time"

	"modernc.org/sqlite"
)

// The write connection of a Saver that Open made waits for SQLite's write
// lock here, in Go, rather than in SQLite's busy handler: its busy timeout
// is 0 once Put has prepared its statements on it (direct.prepare), and
// BEGIN IMMEDIATE is retried while the lock is taken, until the Saver's
// busy timeout or the context's end. The driver interrupts a statement
// whose context ends only by watching the context for it (a goroutine, a
// channel and a progress handler, on every statement), which a step of
// the runtime paid on every BEGIN; this way BEGIN runs on a context that
// cannot end, and a wait still ends with the caller's.

// sqliteBusy is SQLITE_BUSY, the primary result code of a lock another
// connection holds.
const sqliteBusy = 5

// busyDelays are the waits between tries of retryBusy, then its last one
// over and over: the schedule of SQLite's own busy handler.
var busyDelays = [...]time.Duration{1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100}

// isBusy reports whether err is SQLite's SQLITE_BUSY (extended codes
// included).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

// retryBusy runs f until it returns anything but SQLITE_BUSY, for at most
// timeout, waiting between tries; it returns ctx's error if ctx ends
// first, and f's last error when the time is up.
func retryBusy(ctx context.Context, timeout time.Duration, f func() error) error {
	var deadline time.Time
	for i := 0; ; i++ {
		err := f()
		if err == nil || !isBusy(err) {
			return err
		}
		if i == 0 {
			deadline = time.Now().Add(timeout)
		}
		d := busyDelays[min(i, len(busyDelays)-1)] * time.Millisecond
		rem := time.Until(deadline)
		if rem <= 0 {
			return err
		}
		t := time.NewTimer(min(d, rem))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
