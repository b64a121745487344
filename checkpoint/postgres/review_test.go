package postgres_test

// Review probes specific to the PostgreSQL backend: cancelled writes,
// damaged rows, racing first puts.

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestReviewCancelledPutWhileBlockedStoresNothing cancels a Put while its
// statement waits for the head's row lock, and releases the lock as soon as
// Put has returned: a Put that failed must not store its checkpoint once
// the server gets to it.
func TestReviewCancelledPutWhileBlockedStoresNothing(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-review-" + uuid.NewString()[:8]
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

// TestReviewCancelledPutIsSettledWhenItReturns cancels Puts at successive
// points (a context that trips on its n-th Done/Err call) and checks the
// outcome after the server has finished with the abandoned statement: a
// Put that returned an error must not have stored its checkpoint. The
// runtime would otherwise retry, get ErrConflict against its own
// checkpoint, and believe another run took the thread.
func TestReviewCancelledPutIsSettledWhenItReturns(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	app := "stategraph-review-" + uuid.NewString()[:8]
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

// TestReviewJSONNullRowsAreErrCorrupt: a checkpoint row whose versions or
// metadata is the JSON null is damaged, like one that is not an object
// (faults_test.go); it must not read back as a checkpoint with no channels
// or empty metadata. (The SQLite backend reports both as ErrCorrupt.)
func TestReviewJSONNullRowsAreErrCorrupt(t *testing.T) {
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

// TestReviewFirstPutRaceAcrossSavers: first puts (ExpectHead "") of one
// empty namespace from savers on separate pools: exactly one wins.
func TestReviewFirstPutRaceAcrossSavers(t *testing.T) {
	t.Parallel()
	schema := newSchema(t)
	ctx := context.Background()
	const n = 6
	savers := make([]*postgres.Saver, n)
	for i := range savers {
		savers[i] = postgres.New(newPool(t, nil), postgres.WithSchema(schema))
		require.NoError(t, savers[i].Migrate(ctx))
	}
	for round := range 5 {
		thread := newThread()
		errs := make(chan error, n)
		start := make(chan struct{})
		for _, s := range savers {
			go func() {
				<-start
				_, err := s.Put(ctx, putReq(thread, "", nil, map[string]checkpoint.Blob{"a": fullBlob(uuid.NewString(), `"x"`)}))
				errs <- err
			}()
		}
		close(start)
		wins := 0
		for range savers {
			if err := <-errs; err == nil {
				wins++
			} else {
				require.ErrorIs(t, err, checkpoint.ErrConflict, "round %d", round)
			}
		}
		require.Equal(t, 1, wins, "round %d", round)
		n := 0
		for _, err := range savers[0].List(ctx, configOf(thread), checkpoint.ListOptions{}) {
			require.NoError(t, err)
			n++
		}
		require.Equal(t, 1, n, "round %d", round)
	}
}
