package worker_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestFollowAcrossARetrySeesEachCheckpointOnce: a follower that starts before a run that
// needs two executions sees each of its checkpoints once, in order, and
// ends with the final status; the node whose step was cut short ran again,
// the others once.
func TestFollowAcrossARetrySeesEachCheckpointOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var cRuns atomic.Int32
	g := e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" && cRuns.Add(1) == 1 {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(g, "pipeline"), worker.WithRunTimeout(3*time.Second)) // the second attempt must finish within it, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "fr", Input: DocInput{Topic: "fr", Add: 2}})
	require.NoError(t, err)
	var (
		steps    []int
		ids      []string
		statuses []worker.Status
		final    *worker.Run
	)
	for ev, err := range c.Follow(ctx, id) {
		require.NoError(t, err)
		switch ev.Kind {
		case worker.EventCheckpoint:
			steps = append(steps, ev.Step)
			ids = append(ids, ev.Checkpoint.CheckpointID)
		case worker.EventStatus:
			statuses = append(statuses, ev.Status)
			final = ev.Run
		}
	}
	require.Equal(t, worker.StatusSuccess, statuses[len(statuses)-1], "%v", statuses)
	require.Equal(t, []int{-1, 0, 1, 2, 3}, steps, "each checkpoint once, in order")
	require.True(t, slices.IsSorted(ids))
	require.Equal(t, 2, final.Attempts)
	require.Equal(t, reference(t, DocInput{Topic: "fr", Add: 2}, 1), result(t, final))
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}, e.nodeLog("fr"), "c logs only when it finishes")
	require.EqualValues(t, 2, cRuns.Load())
}

// TestWaitAndFollowOfFinishedAndUnknownRuns: Wait on a finished run returns it at
// once, as often as asked; Follow and Wait of an unknown run end with
// ErrNotFound.
func TestWaitAndFollowOfFinishedAndUnknownRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "w", Input: DocInput{Topic: "w"}})
	require.NoError(t, err)
	r1 := wait(t, c, id)
	r2 := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r2.Status)
	require.Equal(t, r1.Result, r2.Result)
	require.Equal(t, r1.UpdatedAt, r2.UpdatedAt)

	n := 0
	for _, err := range c.Follow(ctx, "no-such-run") {
		n++
		require.ErrorIs(t, err, worker.ErrNotFound)
	}
	require.Equal(t, 1, n, "one error, then the end")
	_, err = c.Wait(ctx, "no-such-run")
	require.ErrorIs(t, err, worker.ErrNotFound)

	// A cancelled context: Follow ends with its error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	var last error
	for _, err := range c.Follow(cctx, id) {
		last = err
	}
	require.ErrorIs(t, last, context.Canceled)
}

// listeners counts the goroutines of Follow's LISTEN loop.
func listeners() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return strings.Count(string(buf), "worker.(*Client).listen.func")
}

// TestFollowLeavesNoGoroutine: a Follow of a run that never ends,
// stopped by its context or by the caller, leaves no goroutine behind and
// closes its LISTEN connection. Not parallel: it counts goroutines.
func TestFollowLeavesNoGoroutine(t *testing.T) {
	e := newEnv(t)
	app := "stategraph-follow-" + e.schema
	pool := newPool(t, func(c *pgxpool.Config) { c.ConnConfig.RuntimeParams["application_name"] = app })
	// An insert-only client on a queue nobody works: the run stays pending.
	c, err := worker.New(pool, nil, worker.WithSchema(e.schema), worker.WithSaver(e.saver), worker.WithQueue("idle"), worker.WithPollInterval(50*time.Millisecond))
	require.NoError(t, err)
	ctx := t.Context()
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "leak", Input: DocInput{Topic: "leak"}})
	require.NoError(t, err)
	before := listeners()

	// Stopped by its context while it waits.
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	var during atomic.Int32
	go func() {
		var last error
		for ev, err := range c.Follow(fctx, id) {
			if err == nil && ev.Kind == worker.EventStatus {
				during.Store(int32(listeners()))
				cancel() // the follower is now waiting
			}
			last = err
		}
		done <- last
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("Follow did not end with its context")
	}
	require.EqualValues(t, before+1, during.Load(), "a Follow in progress listens")
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	// Stopped by the caller.
	for range c.Follow(ctx, id) {
		break
	}
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	// An unknown run.
	for range c.Follow(ctx, "nope") {
	}
	require.Equal(t, before, listeners(), "no LISTEN goroutine left")

	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, app).Scan(&n))
		return n == 0
	}, 10*time.Second, 20*time.Millisecond, "the LISTEN connections are closed")
}
