package nodes_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine the agent starts (an eager round's
// steps, a ReAct loop's calls, a model call's timers) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
