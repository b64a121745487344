package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// dsn returns the test database's DSN, or skips tb without one.
func dsn(tb testing.TB) string { return pgtest.DSN(tb) }

// newPool returns a pool on the test database, closed when tb ends.
// configure, if set, adjusts its config.
func newPool(tb testing.TB, configure func(*pgxpool.Config)) *pgxpool.Pool {
	return pgtest.Pool(tb, configure)
}

// newSchema returns the name of a fresh PostgreSQL schema, dropped with
// everything in it when tb ends, so test runs never see each other.
func newSchema(tb testing.TB) string { return pgtest.Schema(tb) }

// newSaver returns a migrated Saver in a fresh schema, with its pool and
// schema name.
func newSaver(tb testing.TB) (*postgres.Saver, *pgxpool.Pool, string) {
	tb.Helper()
	schema := newSchema(tb)
	pool := newPool(tb, nil)
	s := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(tb, s.Migrate(context.Background()))
	return s, pool, schema
}

func TestConformance(t *testing.T) {
	t.Parallel()
	s, _, schema := newSaver(t)
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(testing.TB) checkpoint.Saver { return s },
		// Another process: its own pool on the same schema.
		Reopen: func(tb testing.TB, _ checkpoint.Saver) checkpoint.Saver {
			other := postgres.New(newPool(tb, nil), postgres.WithSchema(schema))
			require.NoError(tb, other.Migrate(context.Background()))
			return other
		},
		IsLimit: func(err error) bool { return errors.Is(err, postgres.ErrLimit) },
	})
}

func BenchmarkSaver(b *testing.B) {
	s, _, _ := newSaver(b)
	checkpointtest.Bench(b, func(testing.TB) checkpoint.Saver { return s })
}

// TestConformanceOverTextResults runs the suite on a pool that speaks
// the simple protocol, whose results come in text format: the reads that
// decode binary columns by hand take their other path.
func TestConformanceOverTextResults(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	simple := func(cfg *pgxpool.Config) { cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol }
	// Text results send a few MB of blobs as hex: on a loaded machine one
	// such statement can outlast the default write timeout, which is not
	// what this suite tests.
	slow := postgres.WithWriteTimeout(5 * time.Minute)
	s := postgres.New(newPool(t, simple), postgres.WithSchema(schema), slow)
	require.NoError(t, s.Migrate(context.Background()))
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(testing.TB) checkpoint.Saver { return s },
		Reopen: func(tb testing.TB, _ checkpoint.Saver) checkpoint.Saver {
			return postgres.New(newPool(tb, simple), postgres.WithSchema(schema), slow)
		},
		IsLimit: func(err error) bool { return errors.Is(err, postgres.ErrLimit) },
	})
}
