package checkpointtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// TestRunHarnessWithReopen runs the whole suite, the cases that reopen
// the storage included, on in-process storage: a reopen of a memory saver
// is the saver itself, whose storage is the process.
func TestRunHarnessWithReopen(t *testing.T) {
	t.Parallel()
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(testing.TB) checkpoint.Saver { return memory.New() },
		Reopen: func(tb testing.TB, s checkpoint.Saver) checkpoint.Saver {
			require.IsType(tb, &memory.Saver{}, s)
			return s
		},
		WithClock: func(_ testing.TB, now func() time.Time) checkpoint.Saver {
			return memory.New(memory.WithLeaseClock(now))
		},
	})
}
