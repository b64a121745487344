package worker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestQueuedRunsOfABusyThreadSleepUntilWoken: twenty runs queue (strategy
// Enqueue) behind a run that holds their thread. Each looks at the
// thread once and sleeps; while the thread stays busy and other threads'
// runs come and go, none of them looks again (no polling against the
// thread's lock). When the holder ends, each run is woken by the end of
// the one before it, so each looks at the thread once more, and they run
// in order. Looks are counted as River counts snoozes, not timed.
func TestQueuedRunsOfABusyThreadSleepUntilWoken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("busy", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithWorkers(4), worker.WithSnoozeInterval(worker.DefaultSnoozeInterval))
	ctx := t.Context()
	jobs := pgx.Identifier{e.schema, "river_job"}.Sanitize()
	runs := pgx.Identifier{e.schema, "stategraph_runs"}.Sanitize()
	snoozes := func() (asleep, total int) {
		t.Helper()
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE j.state = 'scheduled'), coalesce(sum((j.metadata->>'snoozes')::int), 0)
FROM `+runs+` r JOIN `+jobs+` j ON j.id = r.job_id WHERE r.thread_id = 'busy' AND r.strategy = 'enqueue'`).Scan(&asleep, &total))
		return asleep, total
	}

	holder, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "busy", Input: DocInput{Topic: "busy", Add: 1}})
	require.NoError(t, err)
	g.await(t)
	const n = 20
	queued := make([]string, n)
	for i := range n {
		queued[i], err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "busy", Input: DocInput{Topic: "busy", Add: 10}, Strategy: worker.Enqueue})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { asleep, _ := snoozes(); return asleep == n }, time.Minute, 10*time.Millisecond)

	// Other threads' runs go through meanwhile, and take their time.
	for i := range 2 * n {
		thread := fmt.Sprintf("other-%d", i)
		id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: thread, Input: DocInput{Topic: thread}})
		require.NoError(t, err)
		require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
	}
	asleep, looks := snoozes()
	require.Equal(t, n, asleep, "the queued runs still sleep")
	require.Equal(t, n, looks, "each queued run looked at the busy thread once")

	close(g.release)
	go func() { // the queued runs pass the gate too
		for {
			select {
			case <-g.arrived:
			case <-ctx.Done():
				return
			}
		}
	}()
	require.Equal(t, worker.StatusSuccess, wait(t, c, holder).Status)
	for i, id := range queued {
		r := wait(t, c, id)
		require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
		require.Equal(t, 1+4+(i+1)*(10+4), result(t, r).Total, "run %d ran after the ones before it", i)
	}
	_, looks = snoozes()
	t.Logf("%d queued runs slept %d times in all", n, looks)
	require.LessOrEqual(t, looks, n+n/4, "woken in turn, not polling: about one sleep each")
}

// TestEnqueuePastTheThreadsQueueLimitFails: a thread may have at most
// WithMaxQueued pending runs; one more is refused with ErrQueueFull,
// naming the thread and the limit, and enqueues nothing.
func TestEnqueuePastTheThreadsQueueLimitFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := newGate("full", "c")
	c := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithMaxQueued(3))
	ctx := t.Context()

	holder, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "full", Input: DocInput{Topic: "full"}})
	require.NoError(t, err)
	g.await(t)
	for range 3 {
		_, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "full", Input: DocInput{Topic: "full"}, Strategy: worker.Enqueue})
		require.NoError(t, err)
	}
	_, err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "full", Input: DocInput{Topic: "full"}, Strategy: worker.Enqueue})
	require.ErrorIs(t, err, worker.ErrQueueFull)
	require.ErrorContains(t, err, `thread "full"`)
	require.ErrorContains(t, err, "limit (WithMaxQueued) is 3")
	rs, err := c.Runs(ctx, "full")
	require.NoError(t, err)
	require.Len(t, rs, 4, "the refused run was not enqueued")
	// Other threads are not limited by it.
	_, err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "free", Input: DocInput{Topic: "free"}, Strategy: worker.Enqueue})
	require.NoError(t, err)
	close(g.release)
	require.Equal(t, worker.StatusSuccess, wait(t, c, holder).Status)
}
