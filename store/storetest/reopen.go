package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

var reopenTests = []test{
	{name: "ItemsAndVectorsSurviveAReopen", index: true, fn: func(t *testing.T, e *env) {
		if e.h.Reopen == nil {
			t.Skip("the driver keeps nothing outside the process (no Harness.Reopen)")
		}
		ns := []string{"mem"}
		putCorpus(t, e, ns)
		put := e.clock.Now()
		require.NoError(t, e.s.Put(e.ctx, ns, "ttl", obj{"text": "x"}, store.WithTTL(time.Hour)))
		again := e.h.Reopen(t, e.s, e.options(true)...)
		items, err := again.Search(e.ctx, ns, store.SearchOptions{Query: "cheese pizza", Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"pizza", "pasta"}, keys(items))
		it, err := again.Get(e.ctx, ns, "ttl")
		require.NoError(t, err)
		require.True(t, it.ExpiresAt.Equal(put.Add(time.Hour)), "expires at %v", it.ExpiresAt)
		first, err := e.s.Get(e.ctx, ns, "pizza")
		require.NoError(t, err)
		second, err := again.Get(e.ctx, ns, "pizza")
		require.NoError(t, err)
		require.Equal(t, first, second, "the same item, to the microsecond")
	}},
}
