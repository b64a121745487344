package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// TestRunsHaveNoDeadlineUnlessWithRunTimeout: by default a run's context
// has no deadline (River's one-minute job timeout does not apply: a long
// agent run is never cut off for being long); WithRunTimeout is the one
// setting that bounds an execution, and any length is accepted, however
// it compares with River's rescue settings.
func TestRunsHaveNoDeadlineUnlessWithRunTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		opts    []worker.Option
		atLeast time.Duration // 0: no deadline
	}{
		{"default", nil, 0},
		{"two hours", []worker.Option{worker.WithRunTimeout(2 * time.Hour)}, 119 * time.Minute},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			deadlines := make(chan time.Duration, 1)
			g, err := graph.New(docs).AddNode("look", func(ctx context.Context, d Doc) (state.Update[Doc], error) {
				left := time.Duration(0)
				if dl, ok := ctx.Deadline(); ok {
					left = time.Until(dl)
				}
				deadlines <- left
				return state.Writes(totalF.Set(1)), nil
			}).AddEdge(graph.Start, "look").Compile(graph.WithCheckpointer(e.saver))
			require.NoError(t, err)
			c := e.client(registry(g, "look"), tt.opts...)
			id, err := c.Enqueue(t.Context(), worker.Request{Graph: "look", Thread: "t", Input: DocInput{Topic: "t"}})
			require.NoError(t, err)
			require.Equal(t, worker.StatusSuccess, wait(t, c, id).Status)
			left := <-deadlines
			if tt.atLeast == 0 {
				require.Zero(t, left, "no deadline")
			} else {
				require.Greater(t, left, tt.atLeast)
			}
		})
	}
}

// TestHeartbeatSettingsAreChecked: the dead-after limit must exceed the
// heartbeat interval, or a live worker would be declared dead.
func TestHeartbeatSettingsAreChecked(t *testing.T) {
	t.Parallel()
	pool := newPool(t, nil)
	_, err := worker.New(pool, nil, worker.WithHeartbeat(2*time.Second, 2*time.Second))
	require.ErrorContains(t, err, "dead-after limit (2s) longer than it")
	_, err = worker.New(pool, nil, worker.WithHeartbeat(0, time.Second))
	require.Error(t, err)
	_, err = worker.New(pool, nil, worker.WithHeartbeat(time.Second, 3*time.Second))
	require.NoError(t, err)
}

// TestAStartedWorkerHasARowUntilItStops: a started worker records itself
// in stategraph_workers (its heartbeat), and deletes its row when it
// stops, so a clean stop is never taken for a death.
func TestAStartedWorkerHasARowUntilItStops(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	workers := pgx.Identifier{e.schema, "stategraph_workers"}.Sanitize()
	c, err := worker.New(e.pool, registry(e.pipeline(nil), "pipeline"), worker.WithSchema(e.schema), worker.WithSaver(e.saver), testRiver(nil))
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, c.Start(ctx))
	var n int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM `+workers+` WHERE heartbeat_at > now() - interval '1 minute'`).Scan(&n))
	require.Equal(t, 1, n)
	require.NoError(t, c.Stop(ctx))
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM `+workers).Scan(&n))
	require.Zero(t, n)
}
