package telemetry_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine a test starts (span processors,
// exporters, test servers, async saves) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
