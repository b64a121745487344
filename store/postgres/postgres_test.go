package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/postgres"
	"github.com/stategraph/stategraph/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t, nil)
	var mu sync.Mutex
	schemas := map[*store.Store]string{}
	open := func(tb testing.TB, schema string, opts ...store.Option) *store.Store {
		s, err := postgres.New(context.Background(), pool, postgres.Config{Schema: schema}, opts...)
		require.NoError(tb, err)
		return s
	}
	storetest.Run(t, storetest.Harness{
		New: func(tb testing.TB, opts ...store.Option) *store.Store {
			schema := pgtest.Schema(tb)
			s := open(tb, schema, opts...)
			mu.Lock()
			schemas[s] = schema
			mu.Unlock()
			return s
		},
		Reopen: func(tb testing.TB, s *store.Store, opts ...store.Option) *store.Store {
			mu.Lock()
			schema := schemas[s]
			mu.Unlock()
			return open(tb, schema, opts...)
		},
	})
}

func BenchmarkStore(b *testing.B) {
	pool := pgtest.Pool(b, nil)
	storetest.Bench(b, func(tb testing.TB, opts ...store.Option) *store.Store {
		s, err := postgres.New(context.Background(), pool, postgres.Config{Schema: pgtest.Schema(tb)}, opts...)
		require.NoError(tb, err)
		return s
	})
}

func TestFiltersRunInPostgreSQL(t *testing.T) {
	t.Parallel()
	s, err := postgres.New(context.Background(), pgtest.Pool(t, nil), postgres.Config{Schema: pgtest.Schema(t)})
	require.NoError(t, err)
	storetest.Pushdown(t, s,
		[]store.Filter{{"kind": "note"}, {"i": map[string]any{"$gte": 3, "$lt": 20}}, {"done": true}, {"kind": map[string]any{"$ne": "task"}}, {"meta.n": 1}, {"tags": []any{"a"}}, {"kind": "note", "i": map[string]any{"$gt": 1}}},
		[]store.Filter{{"meta": map[string]any{"n": 1}}})
}
