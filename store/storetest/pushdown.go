package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
)

// Pushdown checks that the driver of s, a store.Searcher, runs each
// filter of exact in its database — it says so, and returns only the
// page — and says of each filter of loose that it does not, returning
// more than the page for the Store to finish. The conformance suite
// checks what a search returns; this checks where the work is done. A
// driver calls it with the filters it promises to run; s must be empty.
func Pushdown(t *testing.T, s *store.Store, exact, loose []store.Filter) {
	t.Helper()
	sr, ok := s.Driver().(store.Searcher)
	require.True(t, ok, "%T is not a store.Searcher", s.Driver())
	ctx := context.Background()
	for i := range 30 {
		require.NoError(t, s.Put(ctx, []string{"push", fmt.Sprint(i % 3)}, fmt.Sprintf("k%02d", i), obj{"kind": "note", "i": i, "done": i%2 == 0, "tags": []any{"a"}, "meta": obj{"n": 1}}))
	}
	run := func(f store.Filter) ([]string, bool) {
		conds, err := f.Conditions()
		require.NoError(t, err)
		recs, ok := sr.Search(ctx, store.Query{Prefix: "push", Now: time.Now().Add(time.Hour), Conditions: conds, Limit: 2, Offset: 1})
		var got []string
		for rec, err := range recs {
			require.NoError(t, err)
			got = append(got, rec.Key)
		}
		return got, ok
	}
	for _, f := range exact {
		got, ok := run(f)
		require.True(t, ok, "%v runs in the database", f)
		require.Len(t, got, 2, "%v: the page only", f)
	}
	for _, f := range loose {
		got, ok := run(f)
		require.False(t, ok, "%v is loosened", f)
		require.Greater(t, len(got), 2, "%v: a loosened search ignores the page", f)
	}
}
