package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// backendPID returns the pid of the pool's (only) connection.
func backendPID(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) int {
	t.Helper()
	var pid int
	require.NoError(t, q.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid))
	return pid
}

// Cancelling the context of a write after it returned must not reach its
// connection: no cancel request is sent, and the connection stays in the
// pool (the AfterFunc and the timer are stopped before settled returns).
func TestReview4ContextCancelledAfterAWriteLeavesItsConnectionAlone(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-review4-" + uuid.NewString()[:8]
	pool := appPool(t, app)
	s := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	pid := backendPID(t, pool)

	wctx, cancel := context.WithCancel(ctx)
	req := putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("1", `"x"`)})
	cfg, err := s.Put(wctx, req)
	require.NoError(t, err)
	require.NoError(t, s.PutWrites(wctx, cfg, "task", []checkpoint.PendingWrite{{TaskID: "task", Index: 0, Channel: "a", Value: []byte(`"y"`)}}))
	cancel()

	require.Equal(t, pid, backendPID(t, pool), "the write's connection was closed or replaced")
	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Len(t, tup.PendingWrites, 1)
	require.EqualValues(t, 1, pool.Stat().TotalConns())
}

// A write whose statement outlasts WithWriteTimeout (waiting for a row
// lock) is cancelled by the saver: it returns an error wrapping
// context.DeadlineExceeded, stores nothing once the lock is gone, and the
// pool recovers.
func TestReview4WriteTimeoutCancelsABlockedPut(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-review4-" + uuid.NewString()[:8]
	pool := appPool(t, app)
	s := postgres.New(pool, postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	// Only the blocked Put has the short timeout: the others must not be
	// cut short by a slow commit on a loaded machine.
	short := postgres.New(pool, postgres.WithSchema(schema), postgres.WithWriteTimeout(100*time.Millisecond))
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("1", `"x"`)}))

	admin := newPool(t, nil)
	tx := lockRows(t, admin, schema, "stategraph_heads", thread)

	blocked := putReq(thread, head, map[string]string{"a": "1"}, map[string]checkpoint.Blob{"a": fullBlob("2", `"y"`)})
	_, err := short.Put(ctx, blocked)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, tx.Commit(ctx))
	waitFor(t, admin, app, "", true)

	_, err = s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: blocked.Checkpoint.ID})
	require.ErrorIs(t, err, checkpoint.ErrNotFound)
	// The pool works on: the cancelled connection was replaced.
	next := putReq(thread, head, map[string]string{"a": "1"}, map[string]checkpoint.Blob{"a": fullBlob("3", `"z"`)})
	_, err = s.Put(ctx, next)
	require.NoError(t, err)
}

// A PutWrites cancelled while its foreign-key check waits for the
// checkpoint's row lock stores none of its writes.
func TestReview4CancelledPutWritesWhileBlockedStoresNothing(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-review4-" + uuid.NewString()[:8]
	s := postgres.New(appPool(t, app), postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("1", `"x"`)}))

	admin := newPool(t, nil)
	tx := lockRows(t, admin, schema, "stategraph_checkpoints", thread)

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.PutWrites(wctx, checkpoint.Config{ThreadID: thread, CheckpointID: head}, "task",
			[]checkpoint.PendingWrite{{TaskID: "task", Index: 0, Channel: "a", Value: []byte(`"y"`)}})
	}()
	waitFor(t, admin, app, `wait_event_type = 'Lock'`)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.NoError(t, tx.Commit(ctx))
	waitFor(t, admin, app, "", true)

	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Empty(t, tup.PendingWrites, "a PutWrites that failed stored its writes afterwards")
}
