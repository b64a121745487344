package encrypt_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No test leaves a goroutine behind: the runs' lease heartbeats and the
// savers' connections are all stopped by the end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
