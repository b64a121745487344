package agenttrace_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine the agent starts outlives the examples.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
