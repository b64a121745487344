package postgres_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
)

func TestThreadSize(t *testing.T) {
	t.Parallel()
	checkpointtest.RunSize(t, checkpointtest.Harness{New: func(tb testing.TB) checkpoint.Saver {
		s, _, _ := newSaver(tb)
		return s
	}})
}
