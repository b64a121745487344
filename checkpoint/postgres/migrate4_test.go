package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestTablesOfSchema3AreMigratedAndRead: a history stored in tables at
// schema version 3 (blobs keyed by channel before version) reads the same
// after Migrate brings them to version 4, Verify passes, and the history
// continues on it.
func TestTablesOfSchema3AreMigratedAndRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := newSchema(t)
	pool := newPool(t, nil)
	s := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, s.MigrateTo(ctx, 3))
	pkey := func() string {
		var def string
		require.NoError(t, pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'stategraph_blobs_pkey'`, schema).Scan(&def))
		return def
	}
	require.Contains(t, pkey(), "(thread_id, ns, channel, version)")

	thread := newThread()
	first := putReq(thread, "", nil, map[string]checkpoint.Blob{
		"items": {Version: "i1", Data: []byte(`["a"]`)}, "name": {Version: "n1", Data: []byte(`"x"`)},
	})
	mustPut(t, s, first)
	second := putReq(thread, first.Checkpoint.ID, first.Checkpoint.Versions, map[string]checkpoint.Blob{
		"items": {Version: "i2", Data: []byte(`["b"]`), Delta: true, Base: "i1"},
	})
	second.Metadata = checkpoint.Metadata{Source: checkpoint.SourceLoop, Step: 1, Extra: map[string]any{"user": "ann"}}
	mustPut(t, s, second)
	require.NoError(t, s.PutWrites(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: second.Checkpoint.ID}, "task",
		[]checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`["c"]`)}}))
	list := func(s *postgres.Saver) []*checkpoint.Tuple {
		var out []*checkpoint.Tuple
		for tup, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{}) {
			require.NoError(t, err)
			out = append(out, tup)
		}
		return out
	}
	before := list(s)
	require.Len(t, before, 2)

	require.NoError(t, s.Migrate(ctx))
	require.Contains(t, pkey(), "(thread_id, ns, version, channel)")
	var version int32
	require.NoError(t, pool.QueryRow(ctx, "SELECT max(version) FROM "+pgx.Identifier{schema, "stategraph_migrations"}.Sanitize()).Scan(&version))
	require.EqualValues(t, 4, version)

	other := postgres.New(newPool(t, nil), postgres.WithSchema(schema))
	require.NoError(t, other.Migrate(ctx), "a second process finds nothing to do")
	require.Equal(t, before, list(other), "the history reads as before the migration")
	require.Equal(t, checkpoint.Value{Version: "i2", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`)}}, before[0].Checkpoint.Values["items"])
	require.NoError(t, other.Verify(ctx, thread))

	third := putReq(thread, second.Checkpoint.ID, second.Checkpoint.Versions, map[string]checkpoint.Blob{
		"items": {Version: "i3", Data: []byte(`["c"]`), Delta: true, Base: "i2"},
	})
	mustPut(t, other, third)
	latest, err := other.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, checkpoint.Value{Version: "i3", Snapshot: []byte(`["a"]`), Deltas: [][]byte{[]byte(`["b"]`), []byte(`["c"]`)}}, latest.Checkpoint.Values["items"])
	require.NoError(t, other.Verify(ctx, thread))
	require.NoError(t, other.Prune(ctx, thread, 1))
	pruned, err := other.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, latest.Checkpoint.Values, pruned.Checkpoint.Values)
}
