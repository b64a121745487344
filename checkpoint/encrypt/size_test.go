package encrypt_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stretchr/testify/require"
)

func TestThreadSizeThroughTheWrapper(t *testing.T) {
	t.Parallel()
	ring := newRing(t)
	t.Run("memory", func(t *testing.T) {
		checkpointtest.RunSize(t, checkpointtest.Harness{New: func(testing.TB) checkpoint.Saver { return encrypt.Wrap(memory.New(), ring) }})
	})
	t.Run("sqlite", func(t *testing.T) {
		checkpointtest.RunSize(t, checkpointtest.Harness{New: func(tb testing.TB) checkpoint.Saver {
			return encrypt.Wrap(openSQLite(tb, filepath.Join(tb.TempDir(), "cp.db")), ring)
		}})
	})
}

// noSizes is a saver that reports no sizes.
type noSizes struct{ checkpoint.Saver }

func TestThreadSizeOfASaverWithoutSizesIsUnsupported(t *testing.T) {
	t.Parallel()
	s := encrypt.Wrap(noSizes{memory.New()}, newRing(t))
	_, err := s.(checkpoint.Sizer).ThreadSize(context.Background(), "t1")
	require.ErrorIs(t, err, errors.ErrUnsupported)
	require.ErrorContains(t, err, "noSizes")
}
