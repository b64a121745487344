package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStores runs the same rules against every Store.
func TestStores(t *testing.T) {
	t.Parallel()
	stores := map[string]func(t *testing.T) server.Store{
		"memory": func(t *testing.T) server.Store { return server.NewMemoryStore() },
		"sqlite": func(t *testing.T) server.Store {
			st, err := server.OpenSQLiteStore(filepath.Join(t.TempDir(), "server.db"))
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			return st
		},
		"postgres": func(t *testing.T) server.Store {
			pool := pgtest.Pool(t, nil)
			st, err := server.OpenPostgresStore(context.Background(), pool, pgtest.Schema(t))
			require.NoError(t, err)
			return st
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testStore(t, open(t))
		})
	}
}

func testStore(t *testing.T, st server.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		at := t0.Add(time.Duration(i) * time.Second)
		require.NoError(t, st.CreateThread(ctx, server.ThreadRecord{ThreadID: id, Metadata: map[string]any{"i": i, "even": i%2 == 0}, Status: server.StatusIdle, CreatedAt: at, UpdatedAt: at}))
	}
	require.ErrorIs(t, st.CreateThread(ctx, server.ThreadRecord{ThreadID: "a"}), server.ErrExists)
	got, err := st.GetThread(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"i": 1.0, "even": false}, jsonRoundTrip(t, got.Metadata))
	assert.True(t, got.CreatedAt.Equal(t0.Add(time.Second)))
	_, err = st.GetThread(ctx, "zz")
	require.ErrorIs(t, err, server.ErrNotFound)

	got.Status, got.Error = server.StatusError, "boom"
	require.NoError(t, st.PutThread(ctx, got))
	again, err := st.GetThread(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, "boom", again.Error)

	ids := func(q server.ThreadQuery) []string {
		ts, err := st.SearchThreads(ctx, q)
		require.NoError(t, err)
		var out []string
		for _, th := range ts {
			out = append(out, th.ThreadID)
		}
		return out
	}
	assert.Equal(t, []string{"c", "b", "a"}, ids(server.ThreadQuery{}))
	assert.Equal(t, []string{"c", "a"}, ids(server.ThreadQuery{Metadata: map[string]any{"even": true}}))
	assert.Equal(t, []string{"b"}, ids(server.ThreadQuery{Status: server.StatusError}))
	assert.Equal(t, []string{"b"}, ids(server.ThreadQuery{Limit: 1, Offset: 1}))
	assert.Equal(t, []string{"a", "b", "c"}, ids(server.ThreadQuery{SortOrder: "asc"}))

	for i, id := range []string{"r1", "r2", "r3"} {
		at := t0.Add(time.Duration(i) * time.Second)
		status := server.RunSuccess
		if i == 1 {
			status = server.RunError
		}
		require.NoError(t, st.PutRun(ctx, server.RunRecord{RunID: id, ThreadID: "a", Status: status, CreatedAt: at, UpdatedAt: at}))
	}
	runs, err := st.ListRuns(ctx, "a", "", 0, 0)
	require.NoError(t, err)
	require.Len(t, runs, 3)
	assert.Equal(t, "r3", runs[0].RunID, "newest first")
	runs, err = st.ListRuns(ctx, "a", server.RunError, 10, 0)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, "r2", runs[0].RunID)
	runs, err = st.ListRuns(ctx, "a", "", 1, 1)
	require.NoError(t, err)
	assert.Equal(t, "r2", runs[0].RunID)
	r, err := st.GetRun(ctx, "a", "r1")
	require.NoError(t, err)
	assert.Equal(t, server.RunSuccess, r.Status)
	_, err = st.GetRun(ctx, "b", "r1")
	require.ErrorIs(t, err, server.ErrNotFound, "a run belongs to its thread")
	require.NoError(t, st.DeleteRun(ctx, "a", "r1"))
	require.ErrorIs(t, st.DeleteRun(ctx, "a", "r1"), server.ErrNotFound)

	require.NoError(t, st.DeleteThread(ctx, "a"))
	require.ErrorIs(t, st.DeleteThread(ctx, "a"), server.ErrNotFound)
	runs, err = st.ListRuns(ctx, "a", "", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, runs, "a thread's runs go with it")
}

func jsonRoundTrip(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, x := range v {
		switch n := x.(type) {
		case int:
			out[k] = float64(n)
		default:
			out[k] = x
		}
	}
	return out
}
