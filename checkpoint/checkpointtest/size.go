package checkpointtest

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stretchr/testify/require"
)

// RunSize tests a checkpoint.Sizer made by h.New: a thread's size counts
// its checkpoints and pending writes in every namespace and no other
// thread's, its bytes hold at least the values and writes stored and
// grow with them, and an unknown or deleted thread has the zero size.
// It fails when h.New's saver is no Sizer.
func RunSize(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.New(t)
	sz, ok := s.(checkpoint.Sizer)
	require.True(t, ok, "%T is no checkpoint.Sizer", s)
	size := func(thread string) checkpoint.Size {
		t.Helper()
		got, err := sz.ThreadSize(ctx, thread)
		require.NoError(t, err, "size of thread %q", thread)
		return got
	}

	require.Equal(t, checkpoint.Size{}, size(newThreadID()), "an unknown thread")

	thread, other := newThreadID(), newThreadID()
	ids := putChain(t, s, thread, "", 3, nil)
	putChain(t, s, thread, "sub:1", 2, nil)
	putChain(t, s, other, "", 4, nil)
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: ids[2]}, "task-1",
		[]checkpoint.PendingWrite{pw("task-1", 0, "n", "10"), pw("task-1", 1, "n", "11")}))
	got := size(thread)
	require.Equal(t, int64(5), got.Checkpoints, "3 in the root namespace, 2 in a subgraph's")
	require.Equal(t, int64(2), got.Writes)
	// The values "0", "1", "2", "0", "1" and the writes "10", "11".
	require.GreaterOrEqual(t, got.Bytes, int64(9), "bytes below the stored values' %+v", got)

	big := strings.Repeat("x", 10_000)
	mustPut(t, s, thread, step{parent: ids[2], blobs: map[string]checkpoint.Blob{"n": full("big", big)}})
	grown := size(thread)
	require.Equal(t, got.Checkpoints+1, grown.Checkpoints)
	require.GreaterOrEqual(t, grown.Bytes-got.Bytes, int64(len(big)), "a 10,000-byte value added %d bytes", grown.Bytes-got.Bytes)
	require.Equal(t, int64(4), size(other).Checkpoints, "the other thread")

	require.NoError(t, s.DeleteThread(ctx, thread))
	require.Equal(t, checkpoint.Size{}, size(thread), "a deleted thread")
}
