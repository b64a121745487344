package checkpointtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

var contextTests = []test{
	{name: "CancelledContext", fn: testCancelledContext},
	{name: "CancelMidPutIsAllOrNothing", fn: func(t *testing.T, s checkpoint.Saver) { cancelMidPut(t, s, false) }},
	{name: "CancelMidPutWritesIsAllOrNothing", fn: func(t *testing.T, s checkpoint.Saver) { cancelMidPutWrites(t, s, false) }},
	{name: "CancelMidPutErrorWrapsCanceled", fn: func(t *testing.T, s checkpoint.Saver) { cancelMidPut(t, s, true) }},
	{name: "CancelMidPutWritesErrorWrapsCanceled", fn: func(t *testing.T, s checkpoint.Saver) { cancelMidPutWrites(t, s, true) }},
}

// testCancelledContext calls every method with a cancelled context: each
// either works (a backend without I/O may ignore the context) or fails
// with an error wrapping context.Canceled.
func testCancelledContext(t *testing.T, s checkpoint.Saver) {
	thread := newThreadID()
	ids := putChain(t, s, thread, "", 2, nil)
	head := ids[1]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	cases := []struct {
		name string
		call func() error
	}{
		{"Put", func() error {
			_, err := s.Put(ctx, step{parent: head, blobs: map[string]checkpoint.Blob{"n": full("cancelled", "0")}}.request(thread))
			return err
		}},
		{"PutWrites", func() error {
			return s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: ids[0]}, "t", []checkpoint.PendingWrite{pw("t", 0, "x", "1")})
		}},
		{"Get", func() error {
			_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread})
			return err
		}},
		{"List", func() error {
			for _, err := range s.List(ctx, checkpoint.Config{ThreadID: thread}, checkpoint.ListOptions{}) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"DeleteThread", func() error { return s.DeleteThread(ctx, newThreadID()) }},
	}
	if c, ok := s.(checkpoint.Copier); ok {
		cases = append(cases, struct {
			name string
			call func() error
		}{"CopyThread", func() error { return c.CopyThread(ctx, thread, newThreadID()) }})
	}
	if p, ok := s.(checkpoint.Pruner); ok {
		cases = append(cases, struct {
			name string
			call func() error
		}{"Prune", func() error { return p.Prune(ctx, newThreadID(), 1) }})
	}
	for _, c := range cases {
		err := c.call()
		require.True(t, errIsCancelled(err), "%s with a cancelled context: want nil or context.Canceled, got %v", c.name, err)
	}
	// A failed Put stored nothing; a successful one became the head.
	tup := mustGet(t, s, checkpoint.Config{ThreadID: thread})
	require.Contains(t, []string{"n1", "cancelled"}, tup.Checkpoint.Versions["n"])
}
