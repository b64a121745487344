package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

var ttlTests = []test{
	{name: "AnExpiredItemIsInvisibleToEveryRead", fn: func(t *testing.T, e *env) {
		ns := []string{"ttl"}
		require.NoError(t, e.s.Put(e.ctx, ns, "short", obj{"v": 1}, store.WithTTL(time.Minute)))
		require.NoError(t, e.s.Put(e.ctx, ns, "long", obj{"v": 2}, store.WithTTL(time.Hour)))
		require.NoError(t, e.s.Put(e.ctx, []string{"ttl-only"}, "short", obj{"v": 3}, store.WithTTL(time.Minute)))
		it, err := e.s.Get(e.ctx, ns, "short")
		require.NoError(t, err)
		require.True(t, it.ExpiresAt.Equal(t0.Add(time.Minute)), "expires at %v", it.ExpiresAt)

		e.clock.Advance(time.Minute)
		_, err = e.s.Get(e.ctx, ns, "short")
		require.ErrorIs(t, err, store.ErrNotFound, "expired at its ExpiresAt")
		require.Equal(t, []string{"long"}, search(t, e, ns, store.SearchOptions{}))
		out, err := e.s.ListNamespaces(e.ctx, store.ListNamespacesOptions{})
		require.NoError(t, err)
		require.Equal(t, [][]string{{"ttl"}}, out, "a namespace of expired items only is not listed")
	}},
	{name: "APutRenewsTheExpiryAndAnExpiredKeyStartsAfresh", fn: func(t *testing.T, e *env) {
		ns := []string{"ttl"}
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{}, store.WithTTL(time.Minute)))
		e.clock.Advance(50 * time.Second)
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{}, store.WithTTL(time.Minute)))
		e.clock.Advance(50 * time.Second)
		it, err := e.s.Get(e.ctx, ns, "k")
		require.NoError(t, err, "renewed by the second put")
		require.True(t, it.CreatedAt.Equal(t0))
		e.clock.Advance(time.Hour)
		require.NoError(t, e.s.Put(e.ctx, ns, "k", obj{}))
		it, err = e.s.Get(e.ctx, ns, "k")
		require.NoError(t, err)
		require.True(t, it.CreatedAt.Equal(e.clock.Now()), "an expired item is gone: its key is new again")
		require.True(t, it.ExpiresAt.IsZero(), "put without a TTL: never expires")
	}},
	{name: "WithRefreshOnReadGetAndSearchRenewWhatTheyReturn", fn: func(t *testing.T, e *env) {
		s := e.h.New(t, store.WithClock(e.clock.Now), store.WithRefreshOnRead(),
			store.WithIndex(store.Index{Embedder: &Embedder{}, Fields: []string{"text"}}))
		ns := []string{"r"}
		for _, k := range []string{"got", "searched", "queried"} {
			require.NoError(t, s.Put(e.ctx, ns, k, obj{"text": k}, store.WithTTL(time.Minute)))
		}
		require.NoError(t, s.Put(e.ctx, []string{"unread"}, "k", obj{"text": "unread"}, store.WithTTL(time.Minute)))
		require.NoError(t, s.Put(e.ctx, ns, "forever", obj{"text": "forever"}))

		e.clock.Advance(50 * time.Second)
		it, err := s.Get(e.ctx, ns, "got")
		require.NoError(t, err)
		require.True(t, it.ExpiresAt.Equal(e.clock.Now().Add(time.Minute)), "the returned item shows its new expiry: %v", it.ExpiresAt)
		items, err := s.Search(e.ctx, ns, store.SearchOptions{Filter: store.Filter{"text": "searched"}})
		require.NoError(t, err)
		require.Equal(t, []string{"searched"}, keys(items))
		require.True(t, items[0].ExpiresAt.Equal(e.clock.Now().Add(time.Minute)))
		items, err = s.Search(e.ctx, ns, store.SearchOptions{Query: "queried", Limit: 1})
		require.NoError(t, err)
		require.Equal(t, []string{"queried"}, keys(items))
		require.True(t, items[0].ExpiresAt.Equal(e.clock.Now().Add(time.Minute)))

		e.clock.Advance(50 * time.Second) // 100s after the puts
		_, err = s.Get(e.ctx, []string{"unread"}, "k")
		require.ErrorIs(t, err, store.ErrNotFound, "what nobody read expired")
		got, err := store.New(s.Driver(), store.WithClock(e.clock.Now)) // reads without refreshing
		require.NoError(t, err)
		items, err = got.Search(e.ctx, ns, store.SearchOptions{})
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"got", "searched", "queried", "forever"}, keys(items), "what was read lives on")
		it, err = got.Get(e.ctx, ns, "forever")
		require.NoError(t, err)
		require.True(t, it.ExpiresAt.IsZero(), "an item without a TTL gets none from a read")
	}},
	{name: "TheDefaultTTLAppliesToPutsWithoutOne", fn: func(t *testing.T, e *env) {
		s := e.h.New(t, store.WithClock(e.clock.Now), store.WithDefaultTTL(time.Hour))
		require.NoError(t, s.Put(e.ctx, []string{"d"}, "k", obj{}))
		require.NoError(t, s.Put(e.ctx, []string{"d"}, "own", obj{}, store.WithTTL(time.Minute)))
		a, err := s.Get(e.ctx, []string{"d"}, "k")
		require.NoError(t, err)
		require.True(t, a.ExpiresAt.Equal(t0.Add(time.Hour)))
		b, err := s.Get(e.ctx, []string{"d"}, "own")
		require.NoError(t, err)
		require.True(t, b.ExpiresAt.Equal(t0.Add(time.Minute)))
	}},
	{name: "SweepDeletesExactlyTheExpiredItems", index: true, fn: func(t *testing.T, e *env) {
		ns := []string{"ttl"}
		for _, k := range []string{"e1", "e2", "e3", "e4", "e5"} {
			require.NoError(t, e.s.Put(e.ctx, ns, k, obj{"text": "gone soon"}, store.WithTTL(time.Minute)))
		}
		require.NoError(t, e.s.Put(e.ctx, ns, "later", obj{"text": "stays"}, store.WithTTL(time.Hour)))
		require.NoError(t, e.s.Put(e.ctx, ns, "never", obj{"text": "stays"}))
		// A store whose clock stays behind sees what is still stored.
		past, err := store.New(e.s.Driver(), store.WithClock(func() time.Time { return t0 }))
		require.NoError(t, err)
		e.clock.Advance(2 * time.Minute)
		n, err := e.s.Sweep(e.ctx, 2)
		require.NoError(t, err)
		require.Equal(t, 5, n, "in batches of 2: 2, 2, 1")
		require.Equal(t, []string{"later", "never"}, search(t, &env{s: past, ctx: e.ctx}, ns, store.SearchOptions{}), "the expired items are deleted, not only hidden (same update time: by key)")
		n, err = e.s.Sweep(e.ctx, 0)
		require.NoError(t, err)
		require.Zero(t, n)
	}},
}
