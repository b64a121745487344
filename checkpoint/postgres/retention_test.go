package postgres_test

import (
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/retention/retentiontest"
)

func TestRetention(t *testing.T) {
	t.Parallel()
	retentiontest.Run(t, func(tb testing.TB) checkpoint.Saver {
		s, _, _ := newSaver(tb) // a fresh schema each
		return s
	})
}
