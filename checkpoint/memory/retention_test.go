package memory_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention/retentiontest"
)

func TestRetention(t *testing.T) {
	t.Parallel()
	retentiontest.Run(t, func(testing.TB) checkpoint.Saver { return memory.New() })
}
