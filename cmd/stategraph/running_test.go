package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// A thread whose lease a run holds is shown running, with the holder and
// since when; once the lease is released it shows its stored status again.
func TestThreadsAndStateShowARunningThreadWithItsHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type backend struct {
		leaser checkpoint.Leaser
		run    func(args ...string) result
	}
	backends := map[string]backend{}

	db := sqliteDB(t)
	lite, err := sqlite.Open(db)
	require.NoError(t, err)
	t.Cleanup(func() { _ = lite.Close() })
	backends["sqlite"] = backend{lite, func(args ...string) result { return onDB(t, db, args...) }}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		dsn, schema := postgresDB(t)
		pg, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
		require.NoError(t, err)
		t.Cleanup(func() { _ = pg.Close() })
		backends["postgres"] = backend{pg, func(args ...string) result {
			return cli(t, nil, append([]string{"-dsn", dsn, "-schema", schema}, args...)...)
		}}
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			ls, err := b.leaser.Lease(ctx, threadPaused, "worker-7:4242:run-9", time.Minute)
			require.NoError(t, err)

			r := b.run("threads")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `(?m)^paused-1\s+2\s+running \(held by worker-7:4242:run-9 since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)\s+4\s`, r.stdout)
			assert.Regexp(t, `(?m)^done-1\s+3\s+done\s`, r.stdout, "a thread nobody holds keeps its status")

			r = b.run("-json", "threads")
			require.Equal(t, 0, r.code, r.stderr)
			var rows []threadRow
			require.NoError(t, jsonUnmarshal(r.stdout, &rows))
			for _, row := range rows {
				if row.Thread != threadPaused {
					assert.Empty(t, row.Holder, row.Thread)
					continue
				}
				assert.Equal(t, "running", row.Status)
				assert.Equal(t, "worker-7:4242:run-9", row.Holder)
				require.NotNil(t, row.Since)
				assert.WithinDuration(t, ls.Info().Since, *row.Since, time.Second)
			}

			r = b.run("state", threadPaused)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `(?m)^running\s+held by worker-7:4242:run-9 since `, r.stdout)
			r = b.run("-json", "state", threadPaused)
			require.Equal(t, 0, r.code, r.stderr)
			var v stateView
			require.NoError(t, jsonUnmarshal(r.stdout, &v))
			require.NotNil(t, v.Lease)
			assert.Equal(t, "worker-7:4242:run-9", v.Lease.Holder)

			require.NoError(t, ls.Release(ctx))
			r = b.run("threads")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `(?m)^paused-1\s+2\s+interrupted \(review\)\s+4\s`, r.stdout)
			r = b.run("state", threadPaused)
			require.Equal(t, 0, r.code, r.stderr)
			assert.NotContains(t, r.stdout, "running")
		})
	}
}
