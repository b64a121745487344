package agenttrace_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine the agent starts outlives the examples.
// exporters, test servers, async saves) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
