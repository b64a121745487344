package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// appPool returns a pool of one connection named app, never pinged on
// acquire: pgxpool pings a connection idle for over a second and quietly
// replaces a dead one, which would hide the kill from the next call.
func appPool(t *testing.T, app string) *pgxpool.Pool {
	return newPool(t, func(c *pgxpool.Config) {
		c.MaxConns = 1
		c.ConnConfig.RuntimeParams["application_name"] = app
		c.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	})
}

func TestKilledIdleConnectionFailsOneCallNamingTheThread(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-test-" + uuid.NewString()[:8]
	s := postgres.New(appPool(t, app), postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("1", `"x"`)}))

	pgtest.Terminate(t, newPool(t, nil), app)
	_, err := s.Get(ctx, configOf(thread))
	require.Error(t, err)
	require.ErrorContains(t, err, thread)
	require.NotErrorIs(t, err, checkpoint.ErrNotFound)

	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err, "the pool replaces the dead connection")
	require.Equal(t, head, tup.Checkpoint.ID)
}

// TestKilledConnectionMidPutStoresNothing kills the backend of a Put while
// it waits for the head's row lock: the Put fails naming the thread, stores
// nothing, and the next Put from the same head succeeds.
func TestKilledConnectionMidPutStoresNothing(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-test-" + uuid.NewString()[:8]
	s := postgres.New(appPool(t, app), postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, nil))

	// Another session holds the head row.
	admin := newPool(t, nil)
	tx := lockRows(t, admin, schema, "stategraph_heads", thread)

	done := make(chan error, 1)
	killed := putReq(thread, head, nil, map[string]checkpoint.Blob{"a": fullBlob("2", `"y"`)})
	go func() {
		_, err := s.Put(ctx, killed)
		done <- err
	}()
	// Wait until the Put's backend waits for the lock, then kill it.
	var waiting bool
	for !waiting {
		require.NoError(t, admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
WHERE application_name = $1 AND wait_event_type = 'Lock')`, app).Scan(&waiting))
	}
	pgtest.Terminate(t, admin, app)
	err := <-done
	require.Error(t, err)
	require.ErrorContains(t, err, thread)
	require.NotErrorIs(t, err, checkpoint.ErrConflict)
	require.NoError(t, tx.Rollback(ctx))

	_, err = s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: killed.Checkpoint.ID})
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "the killed put stored nothing")
	next := mustPut(t, s, putReq(thread, head, nil, map[string]checkpoint.Blob{"a": fullBlob("2", `"y"`)}))
	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, next, tup.Checkpoint.ID)
	require.Equal(t, []byte(`"y"`), tup.Checkpoint.Values["a"].Snapshot)
}

func TestCorruptRowsAreErrCorrupt(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	ctx := context.Background()
	cps := pgx.Identifier{schema, "stategraph_checkpoints"}.Sanitize()
	blobs := pgx.Identifier{schema, "stategraph_blobs"}.Sanitize()
	cases := []struct {
		name    string
		corrupt string // SQL run with $1 = thread
	}{
		{"blob deleted", `DELETE FROM ` + blobs + ` WHERE thread_id = $1 AND channel = 'a'`},
		{"base of a delta deleted", `DELETE FROM ` + blobs + ` WHERE thread_id = $1 AND channel = 'log' AND version = 'l1'`},
		// A delta whose base is cleared is caught by the blob's checksum
		// (corrupt_test.go), not here.
		{"delta chain cycle", `UPDATE ` + blobs + ` SET delta = true, base = 'l3' WHERE thread_id = $1 AND version = 'l1'`},
		{"versions not a map of strings", `UPDATE ` + cps + ` SET versions = '{"a": 1}' WHERE thread_id = $1`},
		{"versions not an object", `UPDATE ` + cps + ` SET versions = '[1]' WHERE thread_id = $1`},
		{"metadata not an object", `UPDATE ` + cps + ` SET metadata = '"x"' WHERE thread_id = $1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			thread := newThread()
			first := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("a1", "1"), "log": fullBlob("l1", "[1]")}))
			second := mustPut(t, s, putReq(thread, first, map[string]string{"a": "a1", "log": "l1"}, map[string]checkpoint.Blob{"log": deltaBlob("l2", "l1", "[2]")}))
			last := mustPut(t, s, putReq(thread, second, map[string]string{"a": "a1", "log": "l2"}, map[string]checkpoint.Blob{"log": deltaBlob("l3", "l2", "[3]")}))
			tup, err := s.Get(ctx, configOf(thread))
			require.NoError(t, err)
			require.Equal(t, checkpoint.Value{Version: "l3", Snapshot: []byte("[1]"), Deltas: [][]byte{[]byte("[2]"), []byte("[3]")}}, tup.Checkpoint.Values["log"])

			_, err = pool.Exec(ctx, c.corrupt, thread)
			require.NoError(t, err)
			requireCorruptOnRead(t, s, thread, last)
		})
	}
}

// lockRows holds the thread's rows of table (FOR UPDATE) in a transaction
// of admin, another session, until the returned tx ends or the test does.
func lockRows(t *testing.T, admin *pgxpool.Pool, schema, table, thread string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	tx, err := admin.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	_, err = tx.Exec(ctx, "SELECT 1 FROM "+pgx.Identifier{schema, table}.Sanitize()+" WHERE thread_id = $1 FOR UPDATE", thread)
	require.NoError(t, err)
	return tx
}

// requireCorruptOnRead asserts that both Get and List of the thread fail
// with ErrCorrupt naming the thread and the checkpoint id.
func requireCorruptOnRead(t *testing.T, s *postgres.Saver, thread, id string) {
	t.Helper()
	_, err := s.Get(context.Background(), configOf(thread))
	requireCorrupt(t, err, thread, id)
	var listErr error
	for _, err := range s.List(context.Background(), configOf(thread), checkpoint.ListOptions{}) {
		if err != nil {
			listErr = err
			break
		}
	}
	requireCorrupt(t, listErr, thread, id)
}

func requireCorrupt(t *testing.T, err error, thread, id string) {
	t.Helper()
	require.ErrorIs(t, err, checkpoint.ErrCorrupt)
	require.ErrorContains(t, err, thread)
	require.ErrorContains(t, err, id)
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := checkpoint.Config{ThreadID: thread, CheckpointID: head}
	calls := []struct {
		name string
		call func() error
	}{
		{"Put", func() error { _, err := s.Put(ctx, putReq(thread, head, nil, nil)); return err }},
		{"PutWrites", func() error {
			return s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Channel: "a", Value: []byte("1")}})
		}},
		{"Get", func() error { _, err := s.Get(ctx, cfg); return err }},
		{"List", func() error {
			for _, err := range s.List(ctx, configOf(thread), checkpoint.ListOptions{}) {
				return err
			}
			return errors.New("List yielded nothing")
		}},
		{"DeleteThread", func() error { return s.DeleteThread(ctx, thread) }},
		{"CopyThread", func() error { return s.CopyThread(ctx, thread, newThread()) }},
		{"Prune", func() error { return s.Prune(ctx, thread, 1) }},
	}
	for _, c := range calls {
		err := c.call()
		require.ErrorIs(t, err, context.Canceled, c.name)
		require.ErrorContains(t, err, thread, c.name)
	}
	require.ErrorIs(t, s.Migrate(ctx), context.Canceled)

	// Nothing changed.
	tup, err := s.Get(context.Background(), configOf(thread))
	require.NoError(t, err)
	require.Equal(t, head, tup.Checkpoint.ID)
	require.Empty(t, tup.PendingWrites)
}

// TestJSONNullRowsAreErrCorrupt: a checkpoint row whose versions or
// metadata is the JSON null is damaged, like one that is not an object
// (faults_test.go); it must not read back as a checkpoint with no channels
// or empty metadata. (The SQLite backend reports both as ErrCorrupt.)
func TestJSONNullRowsAreErrCorrupt(t *testing.T) {
	t.Parallel()
	s, pool, schema := newSaver(t)
	ctx := context.Background()
	cps := pgx.Identifier{schema, "stategraph_checkpoints"}.Sanitize()
	cases := []struct {
		name, damage string
	}{
		{"versions null", `UPDATE ` + cps + ` SET versions = 'null' WHERE thread_id = $1`},
		{"metadata null", `UPDATE ` + cps + ` SET metadata = 'null' WHERE thread_id = $1`},
		{"metadata wrong type", `UPDATE ` + cps + ` SET metadata = '{"step":"three"}' WHERE thread_id = $1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			thread := newThread()
			id := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("a1", "1")}))
			_, err := pool.Exec(ctx, c.damage, thread)
			require.NoError(t, err)
			requireCorruptOnRead(t, s, thread, id)
		})
	}
}
