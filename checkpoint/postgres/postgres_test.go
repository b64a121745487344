package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// dsn returns the test database's DSN, or skips tb without one.
func dsn(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv("STATEGRAPH_POSTGRES_DSN")
	if d == "" {
		tb.Skip("set STATEGRAPH_POSTGRES_DSN=postgres://root@127.0.0.1:5432/test?sslmode=disable to run the PostgreSQL tests")
	}
	return d
}

// newPool returns a pool on the test database, closed when tb ends.
// configure, if set, adjusts its config.
func newPool(tb testing.TB, configure func(*pgxpool.Config)) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(dsn(tb))
	require.NoError(tb, err)
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// newSchema returns the name of a fresh PostgreSQL schema, dropped with
// everything in it when tb ends, so test runs never see each other.
func newSchema(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(tb, err)
	name := "stategraph_test_" + hex.EncodeToString(b[:])
	pool := newPool(tb, nil)
	tb.Cleanup(func() {
		_, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
		require.NoError(tb, err)
	})
	return name
}

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
	s, _, _ := newSaver(t)
	checkpointtest.Run(t, func(testing.TB) checkpoint.Saver { return s })
}

func BenchmarkSaver(b *testing.B) {
	s, _, _ := newSaver(b)
	checkpointtest.Bench(b, func(testing.TB) checkpoint.Saver { return s })
}
