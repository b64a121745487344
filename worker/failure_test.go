package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// TestUserCodeFailuresEndTheRunWithoutRetry: a panic or an error of the
// user's code (a node, the InputFunc, the WithOutput function) fails the
// run for good at its first execution, with an error naming the thread
// and saying what happened; River does not retry it.
func TestUserCodeFailuresEndTheRunWithoutRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	reg := worker.NewRegistry()
	worker.Register(reg, "node-panics", e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" {
			panic("node boom")
		}
		return nil
	}), worker.JSONInput(docInput))
	worker.Register(reg, "input-panics", e.pipeline(nil), func(json.RawMessage) (state.Update[Doc], error) {
		panic("input boom")
	})
	worker.Register(reg, "input-fails", e.pipeline(nil), func(json.RawMessage) (state.Update[Doc], error) {
		return state.Update[Doc]{}, errors.New("input refused")
	})
	worker.Register(reg, "output-panics", e.pipeline(nil), worker.JSONInput(docInput), worker.WithOutput(func(Doc) (any, error) {
		panic("output boom")
	}))
	worker.Register(reg, "output-fails", e.pipeline(nil), worker.JSONInput(docInput), worker.WithOutput(func(Doc) (any, error) {
		return nil, errors.New("output refused")
	}))
	// Three attempts at most, so that a retried failure ends quickly.
	c := e.client(reg, testRiver(func(c *river.Config) { c.MaxAttempts = 3 }))
	ctx := t.Context()

	tests := []struct {
		graph, want string
	}{
		{"node-panics", "node boom"},
		{"input-fails", "input refused"},
		{"output-fails", "output refused"},
		{"input-panics", "input boom"},
		{"output-panics", "output boom"},
	}
	for _, tt := range tests {
		t.Run(tt.graph, func(t *testing.T) {
			t.Parallel()
			thread := "t-" + tt.graph
			id, err := c.Enqueue(ctx, worker.Request{Graph: tt.graph, Thread: thread, Input: DocInput{Topic: thread}})
			require.NoError(t, err)
			r := wait(t, c, id)
			require.Equal(t, worker.StatusError, r.Status)
			require.ErrorContains(t, r.Err(), tt.want)
			require.ErrorContains(t, r.Err(), `"`+thread+`"`)
			require.Equal(t, 1, r.Attempts, "a permanent failure is not retried")
			require.Eventually(t, func() bool { return e.jobState(ctx, r.JobID) == "cancelled" }, 10*time.Second, 10*time.Millisecond)
		})
	}
}

// TestExhaustedRetriesEndTheRun: a run whose every execution times
// out (a transient failure) is retried MaxAttempts times, then ends with
// StatusError; its error and its job's errors name the thread.
func TestExhaustedRetriesEndTheRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.pipeline(func(ctx context.Context, topic, node string) error {
		if node == "c" {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	c := e.client(registry(g, "pipeline"), worker.WithRunTimeout(time.Second), testRiver(func(c *river.Config) { c.MaxAttempts = 2 })) // step 0 must be saved within it on the first attempt, even on a loaded machine
	ctx := t.Context()

	id, err := c.Enqueue(ctx, worker.Request{Graph: "pipeline", Thread: "exhaust", Input: DocInput{Topic: "exhaust", Add: 3}})
	require.NoError(t, err)
	r := wait(t, c, id)
	require.Equal(t, worker.StatusError, r.Status)
	require.Equal(t, 2, r.Attempts)
	require.ErrorContains(t, r.Err(), `"exhaust"`)
	require.NotErrorIs(t, r.Err(), worker.ErrCancelled)
	require.Contains(t, r.Error, "deadline exceeded")
	require.Eventually(t, func() bool { return e.jobState(ctx, r.JobID) == "discarded" }, 10*time.Second, 10*time.Millisecond)
	job, err := c.River().JobGet(ctx, r.JobID)
	require.NoError(t, err)
	require.Len(t, job.Errors, 2)
	for _, je := range job.Errors {
		require.Contains(t, je.Error, `thread "exhaust"`)
	}
	// The input was applied once although the run executed twice.
	snap, err := g.State(ctx, graph.WithThread("exhaust"))
	require.NoError(t, err)
	require.Equal(t, 3+2, snap.Values.Total, "input once, a and b once")
	require.Equal(t, map[string]int{"a": 1, "b": 1}, e.nodeLog("exhaust"))
}

// TestJobWithoutARunRecordIsRefused: a RunArgs job inserted straight into
// River (no row in stategraph_runs) is refused: its job is cancelled with
// an error that says why, and the graph never runs.
func TestJobWithoutARunRecordIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(registry(e.pipeline(nil), "pipeline"))
	ctx := t.Context()

	input, err := json.Marshal(DocInput{Topic: "orphan"})
	require.NoError(t, err)
	res, err := c.River().Insert(ctx, worker.RunArgs{Graph: "pipeline", Thread: "orphan", RunID: "orphan-run", Input: input, Strategy: worker.Reject}, &river.InsertOpts{Queue: worker.DefaultQueue})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.jobState(ctx, res.Job.ID) == "cancelled" }, 10*time.Second, 10*time.Millisecond)
	job, err := c.River().JobGet(ctx, res.Job.ID)
	require.NoError(t, err)
	require.NotEmpty(t, job.Errors)
	require.Contains(t, job.Errors[len(job.Errors)-1].Error, "no record")
	require.Empty(t, e.nodeLog("orphan"))
	_, err = c.Run(ctx, "orphan-run")
	require.ErrorIs(t, err, worker.ErrNotFound)
}
