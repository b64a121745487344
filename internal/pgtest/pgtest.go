package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SkipMessage is what tests print when they skip for want of a database.
const SkipMessage = "set STATEGRAPH_POSTGRES_DSN=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run the PostgreSQL tests (.ci/run does)"

// DSN returns the test database's DSN, or skips tb without one.
func DSN(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv("STATEGRAPH_POSTGRES_DSN")
	if d == "" {
		tb.Skip(SkipMessage)
	}
	return d
}

// Pool returns a pool on the test database, closed when tb ends.
// configure, if set, adjusts its config.
func Pool(tb testing.TB, configure func(*pgxpool.Config)) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(DSN(tb))
	if err != nil {
		tb.Fatalf("pgtest: parse DSN: %v", err)
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// Schema returns the name of a fresh schema, dropped with everything in it
// when tb ends, so test runs never see each other.
func Schema(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	name := "stategraph_test_" + hex.EncodeToString(b[:])
	pool := Pool(tb, nil)
	tb.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return name
}

// Terminate kills the backends whose application_name is app — and only
// them: other tests share the server — and waits until they are gone.
func Terminate(tb testing.TB, admin *pgxpool.Pool, app string) {
	tb.Helper()
	var n int
	// Pick the pids first: in a plain WHERE the planner may call
	// pg_terminate_backend before it tests the name.
	err := admin.QueryRow(context.Background(), `WITH p AS MATERIALIZED (
	SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()
)
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM p`, app).Scan(&n)
	if err != nil {
		tb.Fatalf("pgtest: terminate %q: %v", app, err)
	}
	if n == 0 {
		tb.Fatalf("pgtest: no backend of %q to kill", app)
	}
}
