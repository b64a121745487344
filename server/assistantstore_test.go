package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/server"
)

// TestAssistantStores runs the same rules against every AssistantStore;
// the SQLite one is read again from a reopened file.
func TestAssistantStores(t *testing.T) {
	t.Parallel()
	type opened struct {
		st     server.AssistantStore
		reopen func() server.AssistantStore
	}
	stores := map[string]func(t *testing.T) opened{
		"memory": func(t *testing.T) opened {
			st := server.NewMemoryStore()
			return opened{st: st, reopen: func() server.AssistantStore { return st }}
		},
		"sqlite": func(t *testing.T) opened {
			path := filepath.Join(t.TempDir(), "server.db")
			st, err := server.OpenSQLiteStore(path)
			require.NoError(t, err)
			return opened{st: st, reopen: func() server.AssistantStore {
				require.NoError(t, st.Close())
				again, err := server.OpenSQLiteStore(path)
				require.NoError(t, err)
				t.Cleanup(func() { again.Close() })
				return again
			}}
		},
		"postgres": func(t *testing.T) opened {
			pool := pgtest.Pool(t, nil)
			schema := pgtest.Schema(t)
			st, err := server.OpenPostgresStore(context.Background(), pool, schema)
			require.NoError(t, err)
			return opened{st: st, reopen: func() server.AssistantStore {
				again, err := server.OpenPostgresStore(context.Background(), pgtest.Pool(t, nil), schema)
				require.NoError(t, err)
				return again
			}}
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := open(t)
			ctx := context.Background()
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			v1 := server.AssistantRecord{AssistantID: "a", GraphID: "g", Name: "one", Version: 1, Metadata: map[string]any{"k": "v"},
				Config: server.RunConfigJSON{Configurable: map[string]any{"model": "small"}}, Context: map[string]any{"user": "ann"}, CreatedAt: at, UpdatedAt: at}
			require.NoError(t, o.st.PutAssistant(ctx, v1))
			require.ErrorIs(t, o.st.PutAssistant(ctx, v1), server.ErrExists)
			v2 := v1
			v2.Version, v2.Name = 2, "two"
			require.NoError(t, o.st.PutAssistant(ctx, v2))
			require.NoError(t, o.st.PutAssistant(ctx, server.AssistantRecord{AssistantID: "b", GraphID: "g", Version: 1, CreatedAt: at, UpdatedAt: at}))

			st := o.reopen()
			all, err := st.Assistants(ctx)
			require.NoError(t, err)
			names := map[string]string{}
			for _, a := range all {
				names[a.AssistantID] = a.Name
			}
			assert.Equal(t, map[string]string{"a": "two", "b": ""}, names, "the latest version of each")
			vs, err := st.AssistantVersions(ctx, "a")
			require.NoError(t, err)
			require.Len(t, vs, 2)
			assert.Equal(t, []int{2, 1}, []int{vs[0].Version, vs[1].Version})
			assert.Equal(t, "small", vs[1].Config.Configurable["model"])
			assert.Equal(t, "ann", vs[1].Context["user"])
			assert.True(t, vs[1].CreatedAt.Equal(at))

			require.NoError(t, st.SetLatestAssistant(ctx, "a", 1))
			require.ErrorIs(t, st.SetLatestAssistant(ctx, "a", 9), server.ErrNotFound)
			all, err = st.Assistants(ctx)
			require.NoError(t, err)
			for _, a := range all {
				if a.AssistantID == "a" {
					assert.Equal(t, 1, a.Version)
				}
			}
			_, err = st.AssistantVersions(ctx, "zz")
			require.ErrorIs(t, err, server.ErrNotFound)
			require.NoError(t, st.DeleteAssistant(ctx, "a"))
			require.ErrorIs(t, st.DeleteAssistant(ctx, "a"), server.ErrNotFound)
			all, err = st.Assistants(ctx)
			require.NoError(t, err)
			assert.Len(t, all, 1)
		})
	}
}
