package postgres_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestDeferredReleaseKeepsTheLeaseUntilItsHolderFreesIt: a lease of
// another holder is released at once; a lease released under
// WithDeferredRelease stays held, named by Pending, until Release
// deletes it; a second lease released under the same context, and any
// after Release, are released at once.
func TestDeferredReleaseKeepsTheLeaseUntilItsHolderFreesIt(t *testing.T) {
	t.Parallel()
	s, pool, _ := newSaver(t)
	ctx := t.Context()
	thread, other := newThread(), newThread()

	dctx, d := postgres.WithDeferredRelease(ctx, func(holder string) bool { return holder != "update" })
	_, ok := d.Pending()
	require.False(t, ok, "nothing deferred yet")

	update, err := s.Lease(ctx, thread, "update", time.Minute)
	require.NoError(t, err)
	require.NoError(t, update.Release(dctx))
	info, err := s.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "a lease of a holder the context does not defer is released at once")
	_, ok = d.Pending()
	require.False(t, ok)

	ls, err := s.Lease(ctx, thread, "h1", time.Minute)
	require.NoError(t, err)
	require.NoError(t, ls.Release(dctx))
	info, err = s.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.NotNil(t, info, "a deferred release keeps the row")
	p, ok := d.Pending()
	require.True(t, ok)
	require.Equal(t, thread, p.Thread)
	require.Same(t, pool, p.Pool)
	require.Contains(t, p.Table, "stategraph_leases")
	require.NotEmpty(t, p.Token)

	second, err := s.Lease(ctx, other, "h2", time.Minute)
	require.NoError(t, err)
	require.NoError(t, second.Release(dctx))
	info, err = s.LeaseOf(ctx, other)
	require.NoError(t, err)
	require.Nil(t, info, "a second lease under the same context is released at once")

	require.NoError(t, d.Release(ctx))
	info, err = s.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "Release deleted the deferred lease")
	_, ok = d.Pending()
	require.False(t, ok)
	require.NoError(t, d.Release(ctx), "a second Release does nothing")

	third, err := s.Lease(ctx, thread, "h3", time.Minute)
	require.NoError(t, err)
	require.NoError(t, third.Release(dctx))
	info, err = s.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.Nil(t, info, "after Release, leases are released at once")
}

// TestDeferredReleaseSettledLeavesTheRowToItsHolder: Settled says the
// holder deleted the row itself: Release then deletes nothing, not even a
// later lease of the thread.
func TestDeferredReleaseSettledLeavesTheRowToItsHolder(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := t.Context()
	thread := newThread()

	dctx, d := postgres.WithDeferredRelease(ctx, func(string) bool { return true })
	ls, err := s.Lease(ctx, thread, "h1", time.Minute)
	require.NoError(t, err)
	require.NoError(t, ls.Release(dctx))
	p, ok := d.Pending()
	require.True(t, ok)
	_, err = p.Pool.Exec(ctx, `DELETE FROM `+p.Table+` WHERE thread_id = $1 AND token = $2`, p.Thread, p.Token)
	require.NoError(t, err)
	d.Settled()
	_, ok = d.Pending()
	require.False(t, ok)

	next, err := s.Lease(ctx, thread, "h2", time.Minute)
	require.NoError(t, err, "the thread is free")
	require.NoError(t, d.Release(ctx))
	info, err := s.LeaseOf(ctx, thread)
	require.NoError(t, err)
	require.NotNil(t, info, "Release after Settled leaves the next holder's lease alone")
	require.Equal(t, "h2", info.Holder)
	require.NoError(t, next.Release(ctx))
}
