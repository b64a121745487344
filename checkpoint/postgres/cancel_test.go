package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestCancelledPutWhileBlockedStoresNothing cancels a Put while its
// statement waits for the head's row lock, and releases the lock as soon as
// Put has returned: a Put that failed must not store its checkpoint once
// the server gets to it.
func TestCancelledPutWhileBlockedStoresNothing(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-cancel-" + uuid.NewString()[:8]
	s := postgres.New(appPool(t, app), postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("1", `"x"`)}))

	admin := newPool(t, nil)
	tx := lockRows(t, admin, schema, "stategraph_heads", thread)

	putCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cancelled := putReq(thread, head, map[string]string{"a": "1"}, map[string]checkpoint.Blob{"a": fullBlob("2", `"y"`)})
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(putCtx, cancelled)
		done <- err
	}()
	waitFor(t, admin, app, `wait_event_type = 'Lock'`)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.NoError(t, tx.Commit(ctx))
	waitFor(t, admin, app, "", true)

	_, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: cancelled.Checkpoint.ID})
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "a Put that failed stored its checkpoint afterwards")
	tup, err := s.Get(ctx, configOf(thread))
	require.NoError(t, err)
	require.Equal(t, head, tup.Checkpoint.ID, "the head moved after the Put failed")
}

// A PutWrites cancelled while its foreign-key check waits for the
// checkpoint's row lock stores none of its writes.
func TestCancelledPutWritesWhileBlockedStoresNothing(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-cancel-" + uuid.NewString()[:8]
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

// TestCancelledPutIsSettledWhenItReturns cancels Puts at successive
// points (a context that trips on its n-th Done/Err call) and checks the
// outcome after the server has finished with the abandoned statement: a
// Put that returned an error must not have stored its checkpoint. The
// runtime would otherwise retry, get ErrConflict against its own
// checkpoint, and believe another run took the thread.
func TestCancelledPutIsSettledWhenItReturns(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-cancel-" + uuid.NewString()[:8]
	s := postgres.New(appPool(t, app), postgres.WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	admin := newPool(t, nil)
	thread := newThread()
	head := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob("0", `0`)}))
	for n := 1; n <= 60; n++ {
		req := putReq(thread, head, nil, map[string]checkpoint.Blob{"a": fullBlob(uuid.NewString(), `1`)})
		_, err := s.Put(newTripCtx(n), req)
		if err == nil {
			head = req.Checkpoint.ID
			continue
		}
		require.ErrorIs(t, err, context.Canceled, "attempt %d", n)
		waitFor(t, admin, app, "", true)
		_, gerr := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: req.Checkpoint.ID})
		require.ErrorIs(t, gerr, checkpoint.ErrNotFound, "attempt %d: Put failed with %v, yet its checkpoint is stored", n, err)
	}
}

// A write whose statement outlasts WithWriteTimeout (waiting for a row
// lock) is cancelled by the saver: it returns an error wrapping
// context.DeadlineExceeded, stores nothing once the lock is gone, and the
// pool recovers.
func TestWriteTimeoutCancelsABlockedPut(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-cancel-" + uuid.NewString()[:8]
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

// Cancelling the context of a write after it returned must not reach its
// connection: no cancel request is sent, and the connection stays in the
// pool (the AfterFunc and the timer are stopped before settled returns).
func TestContextCancelledAfterAWriteLeavesItsConnectionAlone(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-cancel-" + uuid.NewString()[:8]
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

// backendPID returns the pid of the pool's (only) connection.
func backendPID(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) int {
	t.Helper()
	var pid int
	require.NoError(t, q.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid))
	return pid
}

// tripCtx is cancelled by its n-th call of Done or Err.
type tripCtx struct {
	context.Context
	mu      sync.Mutex
	left    int
	done    chan struct{}
	tripped bool
}

func newTripCtx(n int) *tripCtx {
	return &tripCtx{Context: context.Background(), left: n, done: make(chan struct{})}
}

func (c *tripCtx) tick() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tripped {
		if c.left--; c.left <= 0 {
			c.tripped = true
			close(c.done)
		}
	}
	return c.tripped
}

func (c *tripCtx) Done() <-chan struct{} { c.tick(); return c.done }

func (c *tripCtx) Err() error {
	if c.tick() {
		return context.Canceled
	}
	return nil
}

// waitFor polls pg_stat_activity until a backend of app matches cond (or,
// with gone, until none of them is active any more, other than the
// poller's own).
func waitFor(t *testing.T, admin interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, app, cond string, gone ...bool) {
	t.Helper()
	q := `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND (` + cond + `))`
	if len(gone) > 0 {
		q = `SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active')`
	}
	for i := 0; ; i++ {
		var ok bool
		require.NoError(t, admin.QueryRow(context.Background(), q, app).Scan(&ok))
		if ok {
			return
		}
		require.Less(t, i, 1_000_000, "pg_stat_activity never showed %s for %s", cond, app)
	}
}
