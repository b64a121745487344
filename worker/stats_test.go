package worker_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

func TestQueueStatsCountPendingRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	enq := e.client(nil) // no registry: nothing executes
	st, err := enq.QueueStats(ctx)
	require.NoError(t, err)
	require.Equal(t, worker.QueueStats{}, st)
	for _, topic := range []string{"q1", "q2", "q3"} {
		_, err := enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: topic, Input: DocInput{Topic: topic, Add: 1}})
		require.NoError(t, err)
	}
	st, err = enq.QueueStats(ctx)
	require.NoError(t, err)
	require.Equal(t, worker.QueueStats{Pending: 3}, st)
}

func TestATakeoverIsCountedByTheWorkerThatMadeIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	g := newGate("tk", "c")
	// a beats once, at its start, and parks the run at c.
	a := e.client(registry(e.pipeline(g.hook), "pipeline"), worker.WithHeartbeat(time.Hour, 4*time.Hour))
	enq := e.client(nil)
	id, err := enq.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "tk", Input: DocInput{Topic: "tk", Add: 1}})
	require.NoError(t, err)
	g.await(t)
	st, err := enq.QueueStats(ctx)
	require.NoError(t, err)
	require.Equal(t, worker.QueueStats{Running: 1}, st)
	before, err := enq.Run(ctx, id)
	require.NoError(t, err)

	// a looks silent to the others: its heartbeat is an hour old. b,
	// beating every 20ms and executing nothing, re-queues a's run on its
	// first beat. (a is alive and still holds the thread's lease, so the
	// run is not finished here: TestKilledWorkerProcessRunsAreFinishedByOthers
	// kills a real process for that.)
	_, err = e.pool.Exec(ctx, `UPDATE `+pgx.Identifier{e.schema, "stategraph_workers"}.Sanitize()+` SET heartbeat_at = now() - interval '1 hour'`)
	require.NoError(t, err)
	b, err := worker.New(e.pool, worker.NewRegistry(), worker.WithSchema(e.schema), worker.WithSaver(e.saver), testRiver(nil),
		worker.WithQueue("elsewhere"), worker.WithHeartbeat(20*time.Millisecond, 100*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, b.Start(ctx))
	require.Eventually(t, func() bool { return b.Takeovers() == 1 }, time.Minute, 5*time.Millisecond)
	require.NoError(t, b.Stop(ctx))
	require.Zero(t, a.Takeovers())
	after, err := enq.Run(ctx, id)
	require.NoError(t, err)
	require.NotEqual(t, before.JobID, after.JobID, "the run has a new job")
	require.Equal(t, "discarded", e.jobState(ctx, before.JobID))
	close(g.release)
}
