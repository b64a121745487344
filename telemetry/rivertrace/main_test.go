package rivertrace_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine of River, the pools or the span
// processors outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
