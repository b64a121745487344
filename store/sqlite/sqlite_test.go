package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/store/sqlite"
	"github.com/stategraph/stategraph/store/storetest"
)

func open(tb testing.TB, path string, opts ...store.Option) *store.Store {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), path, opts...)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, s.Close()) })
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[*store.Store]string{}
	storetest.Run(t, storetest.Harness{
		New: func(tb testing.TB, opts ...store.Option) *store.Store {
			path := filepath.Join(tb.TempDir(), "store.db")
			s := open(tb, path, opts...)
			mu.Lock()
			paths[s] = path
			mu.Unlock()
			return s
		},
		Reopen: func(tb testing.TB, s *store.Store, opts ...store.Option) *store.Store {
			mu.Lock()
			path := paths[s]
			mu.Unlock()
			return open(tb, path, opts...)
		},
	})
}

// TestVectorsAreRowsOfFloat32Bytes pins the index layout a later vector
// extension migrates from: one row per embedded text, 4 bytes a dimension.
func TestVectorsAreRowsOfFloat32Bytes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store.db")
	s := open(t, path, store.WithIndex(store.Index{Embedder: &storetest.Embedder{Dims: 16}, Fields: []string{"notes[*]"}}))
	ctx := context.Background()
	require.NoError(t, s.Put(ctx, []string{"u"}, "k", map[string]any{"notes": []string{"a b", "c"}}))
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT field, seq, length(embedding) FROM store_vectors WHERE ns = 'u' AND key = 'k' ORDER BY seq`)
	require.NoError(t, err)
	defer rows.Close()
	type row struct {
		field    string
		seq, len int
	}
	var got []row
	for rows.Next() {
		var r row
		require.NoError(t, rows.Scan(&r.field, &r.seq, &r.len))
		got = append(got, r)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []row{{"notes[*]", 0, 64}, {"notes[*]", 1, 64}}, got)

	require.NoError(t, s.Delete(ctx, []string{"u"}, "k"))
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM store_vectors`).Scan(&n))
	require.Zero(t, n, "a deleted item takes its vectors")
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(tb testing.TB, opts ...store.Option) *store.Store {
		return open(tb, filepath.Join(tb.TempDir(), "bench.db"), opts...)
	})
}

func TestFiltersRunInSQLite(t *testing.T) {
	t.Parallel()
	s := open(t, filepath.Join(t.TempDir(), "store.db"))
	storetest.Pushdown(t, s,
		[]store.Filter{{"kind": "note"}, {"i": map[string]any{"$gte": 3, "$lt": 20}}, {"done": true}, {"kind": map[string]any{"$ne": "task"}}, {"meta.n": 1}, {"kind": "note", "i": map[string]any{"$gt": 1}}},
		[]store.Filter{{"tags": []any{"a"}}, {"meta": map[string]any{"n": 1}}})
}
