package worker_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/worker"
)

// TestKilledConnectionFailsTheAttemptAndTheRunResumes: the checkpoint
// connection of a running run is killed with pg_terminate_backend while a
// node runs. The step's checkpoint fails with an error naming the thread;
// River retries the job, whose next attempt resumes the thread from its
// last checkpoint and finishes it. The node whose step was not saved runs
// again (at least once); the others do not.
func TestKilledConnectionFailsTheAttemptAndTheRunResumes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := t.Context()
	app := "stategraph-worker-test-" + uuid.NewString()[:8]
	// One connection, never pinged on acquire: the dead one is used, as
	// it would be by a Put racing the kill.
	cpPool := newPool(t, func(c *pgxpool.Config) {
		c.MaxConns = 1
		c.ConnConfig.RuntimeParams["application_name"] = app
		c.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	})
	saver := postgres.New(cpPool, postgres.WithSchema(e.schema))
	g := newGate("k", "c")
	c := e.client(registry(compilePipeline(t, saver, e.pool, e.log, g.hook), "pipeline"))

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "k", Input: DocInput{Topic: "k", Add: 5}})
	require.NoError(t, err)
	g.await(t)
	pgtest.Terminate(t, e.pool, app)
	close(g.release)

	r := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	require.Equal(t, 2, r.Attempts)
	require.Equal(t, reference(t, DocInput{Topic: "k", Add: 5}, 1), result(t, r))
	job, err := c.River().JobGet(ctx, r.JobID)
	require.NoError(t, err)
	require.Len(t, job.Errors, 1)
	require.Contains(t, job.Errors[0].Error, `thread "k"`, "the failed attempt names the thread")
	require.Contains(t, job.Errors[0].Error, "57P01", "terminated by the administrator")
	require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 2, "d": 1}, e.nodeLog("k"),
		"c's step was not saved, so c ran again; a, b and d ran once")
}
