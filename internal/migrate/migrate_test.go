package migrate_test

import (
	"context"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/internal/migrate"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// newSet returns a set in a fresh schema whose steps are steps, with
// "{t}" expanded to a table of the schema.
func newSet(t *testing.T, steps ...string) migrate.Set {
	t.Helper()
	schema := pgtest.Schema(t)
	return migrate.Set{
		Table:  pgx.Identifier{schema, "test_migrations"}.Sanitize(),
		Schema: schema,
		Lock:   migrate.Key("stategraph/internal/migrate test", schema),
		Steps:  steps,
		Expand: func(sql string) string {
			return strings.ReplaceAll(sql, "{t}", pgx.Identifier{schema, "t"}.Sanitize())
		},
	}
}

// count returns the rows of table "t" of the set's schema.
func count(t *testing.T, q migrate.Querier, set migrate.Set) int {
	t.Helper()
	var n int
	require.NoError(t, q.QueryRow(context.Background(), "SELECT count(*) FROM "+pgx.Identifier{set.Schema, "t"}.Sanitize()).Scan(&n))
	return n
}

var (
	createT = `CREATE TABLE {t} (id integer PRIMARY KEY); INSERT INTO {t} VALUES (1)`
	insertT = `INSERT INTO {t} VALUES (2)`
)

func TestUpAppliesEachStepOnceWhenCalledConcurrently(t *testing.T) {
	t.Parallel()
	set := newSet(t, createT, insertT)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		pool := pgtest.Pool(t, nil)
		wg.Go(func() { errs[i] = set.Up(ctx, pool) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "process %d", i)
	}
	pool := pgtest.Pool(t, nil)
	require.NoError(t, set.Up(ctx, pool), "and again, later")
	v, err := set.Version(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 2, v)
	rows, err := pool.Query(ctx, "SELECT version FROM "+set.Table+" ORDER BY version")
	require.NoError(t, err)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	require.NoError(t, err)
	require.Equal(t, []int32{1, 2}, versions, "each step is recorded once")
	require.Equal(t, 2, count(t, pool, set), "each step ran once")
}

func TestUpAppliesOnlyTheNewSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t, nil)
	set := newSet(t, createT)
	require.NoError(t, set.Up(ctx, pool))
	require.Equal(t, 1, count(t, pool, set))
	set.Steps = append(set.Steps, insertT) // a newer release
	require.NoError(t, set.Up(ctx, pool))
	require.Equal(t, 2, count(t, pool, set), "step 1 did not run again")
	v, err := set.Version(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 2, v)
}

func TestUpLeavesANewerDatabaseAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t, nil)
	set := newSet(t, createT, insertT)
	require.NoError(t, set.Up(ctx, pool))
	older := set
	older.Steps = set.Steps[:1]
	require.NoError(t, older.Up(ctx, pool), "an older release on a newer database")
	v, err := older.Version(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, 2, v)
	require.Equal(t, 2, count(t, pool, set))
}

func TestUpRollsBackAFailedStepAndNamesItsVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t, nil)
	set := newSet(t, createT, `INSERT INTO {t} VALUES (1)`) // a duplicate key
	err := set.Up(ctx, pool)
	require.ErrorContains(t, err, "version 2")
	_, err = set.Version(ctx, pool)
	require.Error(t, err, "the versions table was rolled back too")
	var exists bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", set.Schema+".t").Scan(&exists))
	require.False(t, exists, "step 1 was rolled back with step 2")

	set.Steps[1] = insertT // fixed
	require.NoError(t, set.Up(ctx, pool))
	require.Equal(t, 2, count(t, pool, set))
}

func TestVersionOfAMissingTableFails(t *testing.T) {
	t.Parallel()
	set := newSet(t)
	_, err := set.Version(context.Background(), pgtest.Pool(t, nil))
	require.Error(t, err)
}

func TestUpWithoutStepsCreatesTheTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t, nil)
	set := newSet(t)
	require.NoError(t, set.Up(ctx, pool))
	v, err := set.Version(ctx, pool)
	require.NoError(t, err)
	require.Zero(t, v)
}

// TestKeyIsStable pins the key: processes of an older release, migrating
// the same database at the same time, must take the same lock.
func TestKeyIsStable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ scope, schema string }{
		{"stategraph/checkpoint/postgres", ""},
		{"stategraph/checkpoint/postgres", "tenant"},
		{"stategraph/worker", ""},
		{"stategraph/worker", "tenant"},
	} {
		h := fnv.New64a()
		h.Write([]byte(c.scope + "\x00" + c.schema))
		require.Equal(t, int64(h.Sum64()), migrate.Key(c.scope, c.schema), "%+v", c)
	}
	require.NotEqual(t, migrate.Key("stategraph/worker", "a"), migrate.Key("stategraph/worker", "b"))
}

// TestSessionLockExcludesOtherSessionsAndAdmitsUp: while a connection
// holds the session lock, another session cannot take it, and Up on the
// holding connection does not wait for it; after unlock, others can.
func TestSessionLockExcludesOtherSessionsAndAdmitsUp(t *testing.T) {
	t.Parallel()
	set := newSet(t, createT)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := pgtest.Pool(t, nil)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	unlock, err := migrate.SessionLock(ctx, conn, set.Lock)
	require.NoError(t, err)

	other := pgtest.Pool(t, nil)
	tryLock := func() bool {
		var ok bool
		require.NoError(t, other.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", set.Lock).Scan(&ok))
		return ok
	}
	require.False(t, tryLock(), "another session takes the lock")
	require.NoError(t, set.Up(ctx, conn), "Up on the holding connection")
	require.Equal(t, 1, count(t, conn, set))
	require.False(t, tryLock(), "Up released the session lock")
	unlock()
	require.True(t, tryLock(), "unlock releases the lock")
}
