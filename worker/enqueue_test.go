package worker_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestLargeInputRuns: a run with a large input (far above NOTIFY's 8000
// byte payload limit) runs; note that the input travels in the River job's
// args, so it is stored (and kept) in river_job as well as in the thread.
func TestLargeInputRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()
	topic := strings.Repeat("x", 64<<10)
	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "big", Input: DocInput{Topic: topic, Add: 1}, Metadata: map[string]any{"api_key": "s3cr3t"}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusSuccess, r.Status, r.Error)
	require.Equal(t, topic, result(t, r).Topic)

	job, err := c.River().JobGet(ctx, r.JobID)
	require.NoError(t, err)
	var args worker.RunArgs
	require.NoError(t, json.Unmarshal(job.EncodedArgs, &args))
	require.Equal(t, id, args.RunID)
	// Documents the current design: the job args
	// hold the whole input and the metadata.
	require.Greater(t, len(job.EncodedArgs), len(topic))
	require.Equal(t, "s3cr3t", args.Metadata["api_key"])
}

// TestDuplicateRunIDIsRefused: a RunID that names an existing run is refused,
// and nothing of the refused enqueue is left (no second River job).
func TestDuplicateRunIDIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(nil, worker.WithQueue("idle"))
	ctx := t.Context()
	_, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "d1", RunID: "dup", Strategy: worker.Enqueue})
	require.NoError(t, err)
	_, err = c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "d2", RunID: "dup", Strategy: worker.Enqueue})
	require.Error(t, err)
	var jobs int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{e.schema, "river_job"}.Sanitize()).Scan(&jobs))
	require.Equal(t, 1, jobs)
	r, err := c.Run(ctx, "dup")
	require.NoError(t, err)
	require.Equal(t, "d1", r.Thread)
}
