package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
)

func TestMigrateIsIdempotentAndSafeConcurrently(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()

	// Four processes start at once, each with its own pool.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		s := postgres.New(newPool(t, nil), postgres.WithSchema(schema))
		wg.Go(func() { errs[i] = s.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "migrate %d", i)
	}

	// And again, later.
	pool := newPool(t, nil)
	s := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	require.NoError(t, s.Migrate(ctx))

	rows, err := pool.Query(ctx, "SELECT version FROM "+pgx.Identifier{schema, "stategraph_migrations"}.Sanitize()+" ORDER BY version")
	require.NoError(t, err)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	require.NoError(t, err)
	want := []int32{}
	for v := range postgres.SchemaVersion {
		want = append(want, int32(v+1))
	}
	require.Equal(t, want, versions, "each migration is recorded once")

	// The definitions are matched here, not in SQL: a LIKE on indexdef may be
	// evaluated before the schema filter, and pg_get_indexdef then fails on
	// the indexes of a schema that a parallel test is dropping.
	rows, err = pool.Query(ctx, `SELECT indexdef FROM pg_indexes
WHERE schemaname = $1 AND tablename = 'stategraph_checkpoints'`, schema)
	require.NoError(t, err)
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	gin := 0
	for _, def := range defs {
		if strings.Contains(def, "gin (filter jsonb_path_ops)") {
			gin++
		}
	}
	require.Equal(t, 1, gin, "the metadata filter has a GIN index: %q", defs)
}

func TestOpenAndClose(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, dsn(t), postgres.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	mustPut(t, s, putReq(thread, "", nil, nil))
	_, err = s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.Error(t, s.Pool().Ping(ctx), "Close closes the pool Open made")

	_, err = postgres.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	require.Error(t, err)
}

// TestMigrateOfAnUpToDateSchemaIsOneRoundTrip: a process that starts on
// tables already at SchemaVersion reads the version it finds and stops
// there (no lock, no DDL); one that finds them older migrates them under
// the lock, as ever.
func TestMigrateOfAnUpToDateSchemaIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, rt := tracedSaver(t) // migrated
	require.NoError(t, s.Migrate(ctx))
	n, stmts := rt.take()
	require.EqualValues(t, 1, n, "round trips of Migrate on an up-to-date schema: %v", stmts)

	old := postgres.New(newPool(t, nil), postgres.WithSchema(newSchema(t)))
	require.NoError(t, old.MigrateTo(ctx, postgres.SchemaVersion-1))
	require.NoError(t, old.Migrate(ctx))
	v, err := old.SchemaVersionOf(ctx)
	require.NoError(t, err)
	require.Equal(t, postgres.SchemaVersion, v)
}
