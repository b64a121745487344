package checkpointtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// The rules of a checkpoint.Fencer: a Put or PutWrites whose context is
// fenced by a lease (checkpoint.WithFence) stores only while that lease is
// held, so a run that lost its thread to another leaves nothing in it.
var fenceTests = []test{
	{name: "HeldLeaseLetsWritesThrough", fn: testFenceHeldLeaseLetsWritesThrough},
	{name: "LostLeaseStoresNothing", fn: testFenceLostLeaseStoresNothing},
	{name: "OtherThreadsIgnoreTheFence", fn: testFenceOtherThreadsIgnoreIt},
}

// fencer returns s as a checkpoint.Fencer, or skips t.
func fencer(t *testing.T, s checkpoint.Saver) checkpoint.Fencer {
	f, ok := s.(checkpoint.Fencer)
	if !ok {
		t.Skipf("checkpointtest: %T does not implement checkpoint.Fencer", s)
	}
	return f
}

const fenceTTL = time.Hour // never expires during a test: losses are releases and takeovers

func testFenceHeldLeaseLetsWritesThrough(t *testing.T, s checkpoint.Saver) {
	f := fencer(t, s)
	thread := newThreadID()
	a := mustLease(t, f, thread, "a", fenceTTL)
	ctx := checkpoint.WithFence(context.Background(), a)
	cfg, err := s.Put(ctx, step{blobs: map[string]checkpoint.Blob{"x": full("1", "one")}}.request(thread))
	require.NoError(t, err)
	require.NoError(t, s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Index: 0, Channel: "x", Value: []byte("w")}}))
	tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: thread})
	require.NoError(t, err)
	require.Equal(t, cfg.CheckpointID, tup.Config.CheckpointID)
	require.Len(t, tup.PendingWrites, 1)
}

func testFenceLostLeaseStoresNothing(t *testing.T, s checkpoint.Saver) {
	f := fencer(t, s)
	thread := newThreadID()
	bg := context.Background()
	a := mustLease(t, f, thread, "a", fenceTTL)
	stale := checkpoint.WithFence(bg, a)
	first, err := s.Put(stale, step{blobs: map[string]checkpoint.Blob{"x": full("1", "one")}}.request(thread))
	require.NoError(t, err)

	for _, lose := range []struct {
		name string
		do   func()
	}{
		{"released", func() { require.NoError(t, a.Release(bg)) }},
		{"taken over", func() { mustLease(t, f, thread, "b", fenceTTL) }},
	} {
		lose.do()
		_, err = s.Put(stale, step{parent: first.CheckpointID, blobs: map[string]checkpoint.Blob{"x": full("2", "two")}}.request(thread))
		require.ErrorIs(t, err, checkpoint.ErrLeaseLost, "put fenced by a lease %s", lose.name)
		err = s.PutWrites(stale, first, "loser", []checkpoint.PendingWrite{{Index: 0, Channel: "x", Value: []byte("lost")}})
		require.ErrorIs(t, err, checkpoint.ErrLeaseLost, "writes fenced by a lease %s", lose.name)
		tup, err := s.Get(bg, checkpoint.Config{ThreadID: thread})
		require.NoError(t, err)
		require.Equal(t, first.CheckpointID, tup.Config.CheckpointID, "the head did not move (lease %s)", lose.name)
		require.Empty(t, tup.PendingWrites, "no writes stored (lease %s)", lose.name)
	}
	// The holder now writes.
	b, err := f.LeaseOf(bg, thread)
	require.NoError(t, err)
	require.NotNil(t, b)
	require.Equal(t, "b", b.Holder)
}

func testFenceOtherThreadsIgnoreIt(t *testing.T, s checkpoint.Saver) {
	f := fencer(t, s)
	thread, other := newThreadID(), newThreadID()
	bg := context.Background()
	a := mustLease(t, f, thread, "a", fenceTTL)
	require.NoError(t, a.Release(bg))
	ctx := checkpoint.WithFence(bg, a) // lost, but for thread only
	cfg, err := s.Put(ctx, step{blobs: map[string]checkpoint.Blob{"x": full("1", "one")}}.request(other))
	require.NoError(t, err)
	require.NoError(t, s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Index: 0, Channel: "x", Value: []byte("w")}}))
}
