package worker_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/worker"
)

// TestRegisterFuncRunsTheCallersFuncAndTellsItTheEnd: a graph registered
// with RegisterFunc gets the request's payload, its output becomes the
// run's Result, and Ended is called with the status recorded, by which
// time the thread is no longer busy. Peek reads the run as Run does.
func TestRegisterFuncRunsTheCallersFuncAndTellsItTheEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	type ending struct {
		st   worker.Status
		busy bool
		err  error
	}
	var (
		mu    sync.Mutex
		ended = make(chan ending, 1)
		c     *worker.Client
		got   worker.Execution
	)
	reg := worker.NewRegistry()
	worker.RegisterFunc(reg, "fn", func(ctx context.Context, ex worker.Execution) (worker.Outcome, error) {
		mu.Lock()
		got = ex
		mu.Unlock()
		return worker.Outcome{
			Output: json.RawMessage(`{"ok":true}`),
			Ended: func(ctx context.Context, st worker.Status) {
				busy, err := c.Busy(ctx, ex.Thread)
				ended <- ending{st, busy, err}
			},
		}, nil
	})
	c = e.client(reg)
	id, err := c.Enqueue(t.Context(), worker.Request{Graph: "fn", Thread: "th", Payload: map[string]string{"say": "hi"}})
	require.NoError(t, err)
	end := <-ended
	require.NoError(t, end.err)
	require.Equal(t, worker.StatusSuccess, end.st)
	require.False(t, end.busy, "the end is recorded before Ended")
	mu.Lock()
	require.JSONEq(t, `{"say":"hi"}`, string(got.Payload))
	require.Equal(t, 1, got.Attempt)
	require.Equal(t, id, got.RunID)
	mu.Unlock()
	r := wait(t, c, id)
	require.JSONEq(t, `{"ok":true}`, string(r.Result))
	p, err := c.Peek(t.Context(), id)
	require.NoError(t, err)
	require.Equal(t, r.Status, p.Status)
	_, err = c.Peek(t.Context(), "nope")
	require.ErrorIs(t, err, worker.ErrNotFound)
}
