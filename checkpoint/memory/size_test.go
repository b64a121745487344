package memory_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
)

func TestThreadSize(t *testing.T) {
	t.Parallel()
	checkpointtest.RunSize(t, checkpointtest.Harness{New: newSaver})
}
