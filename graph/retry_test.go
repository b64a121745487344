package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestRetryCounts(t *testing.T) {
	t.Parallel()
	errFlaky := errors.New("flaky")
	errFatal := errors.New("fatal")
	cases := []struct {
		name      string
		failures  int
		err       error
		policy    graph.RetryPolicy
		wantCalls int64
		wantErr   error
	}{
		{"succeeds on third", 2, errFlaky, graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond}, 3, nil},
		{"gives up after max", 5, errFlaky, graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond, Jitter: true}, 3, errFlaky},
		{"predicate stops retries", 5, errFatal, graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond, RetryOn: func(err error) bool { return !errors.Is(err, errFatal) }}, 1, errFatal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			g := graph.New(schema).AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
				if calls.Add(1) <= int64(c.failures) {
					return state.Update[counter]{}, c.err
				}
				return state.Writes(nField.Set(1)), nil
			}, graph.WithRetry(c.policy)).AddEdge(graph.Start, "flaky")
			out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
			require.Equal(t, c.wantCalls, calls.Load())
			if c.wantErr == nil {
				require.NoError(t, err)
				require.Equal(t, 1, out.N)
				return
			}
			require.ErrorIs(t, err, c.wantErr)
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			require.Equal(t, "flaky", ne.Node)
			require.EqualValues(t, c.wantCalls, ne.Attempts)
		})
	}
}

// Mirrors test_retry.py (retry_on) and test_durable_retry.py: RetryOn
// decides what is retried, MaxAttempts counts the first run, a retried
// success is applied (and saved) once, interrupts and cancellation are
// never retried.
func TestRetryPolicyRetriesOnlyWhatItShould(t *testing.T) {
	t.Parallel()
	errTransient := errors.New("transient")
	errPermanent := errors.New("permanent")
	cases := []struct {
		name         string
		failures     []error // the errors of the first attempts, then success
		policy       graph.RetryPolicy
		wantErr      error
		wantAttempts int
	}{
		{"succeeds on the third attempt", []error{errTransient, errTransient}, graph.RetryPolicy{MaxAttempts: 5}, nil, 3},
		{"gives up after MaxAttempts", []error{errTransient, errTransient, errTransient, errTransient}, graph.RetryPolicy{MaxAttempts: 3}, errTransient, 3},
		{"RetryOn refuses", []error{errPermanent}, graph.RetryPolicy{MaxAttempts: 5, RetryOn: func(err error) bool { return errors.Is(err, errTransient) }}, errPermanent, 1},
		{"RetryOn accepts, then refuses", []error{errTransient, errPermanent}, graph.RetryPolicy{MaxAttempts: 5, RetryOn: func(err error) bool { return errors.Is(err, errTransient) }}, errPermanent, 2},
		{"default MaxAttempts is 3", []error{errTransient, errTransient, errTransient}, graph.RetryPolicy{}, errTransient, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.policy.InitialInterval = time.Microsecond
			saver := newRecordingSaver()
			var attempts atomic.Int64
			g := graph.New(schema).
				AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
					i := int(attempts.Add(1)) - 1
					if i < len(tc.failures) {
						return state.Update[counter]{}, tc.failures[i]
					}
					return state.Writes(totalField.Set(10), trailField.Set([]string{"flaky"})), nil
				}, graph.WithRetry(tc.policy)).
				AddNode("side", visit("side")).
				AddEdge(graph.Start, "flaky").AddEdge(graph.Start, "side")
			c := mustCompile(t, g, graph.WithCheckpointer(saver))
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.EqualValues(t, tc.wantAttempts, attempts.Load())
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				var ne *graph.NodeError
				require.ErrorAs(t, err, &ne)
				require.Equal(t, "flaky", ne.Node)
				require.Equal(t, tc.wantAttempts, ne.Attempts)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 10, out.Total, "the retried success is applied once")
			require.Equal(t, []string{"flaky", "side"}, out.Trail)
			snap := latestState(t, c, "t")
			require.Empty(t, snap.Next)
			saver.mu.Lock()
			defer saver.mu.Unlock()
			for id, n := range saver.writeCalls {
				require.Equal(t, 1, n, "task %s's writes were saved %d times", id, n)
			}
		})
	}
	t.Run("interrupt is not retried", func(t *testing.T) {
		t.Parallel()
		var cs calls
		g := graph.New(schema).AddNode("ask", askNode(&cs, "ask"), graph.WithRetry(graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Microsecond})).
			AddEdge(graph.Start, "ask")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
		require.ErrorIs(t, err, graph.ErrInterrupted)
		require.Equal(t, 1, cs.get("ask"))
	})
	t.Run("cancellation is not retried", func(t *testing.T) {
		t.Parallel()
		var n atomic.Int64
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		g := graph.New(schema).AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n.Add(1)
			cancel()
			return state.Update[counter]{}, ctx.Err()
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Microsecond})).AddEdge(graph.Start, "slow")
		_, err := mustCompile(t, g).Invoke(ctx, zero)
		require.ErrorIs(t, err, context.Canceled)
		require.EqualValues(t, 1, n.Load())
	})
}

// A resumed node whose attempt fails transiently is retried; the retry
// re-runs the node from its start, so its Interrupt call must return the
// resume value again rather than raise a new interrupt.
func TestRetryAfterResumeReusesResumeValue(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	g := graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n := calls.Add(1)
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			if n == 2 { // the first resumed attempt fails transiently
				return state.Update[counter]{}, errors.New("flaky")
			}
			return state.Writes(lastField.Set(v)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err, "the retry asked again instead of reusing the resume value")
	require.Equal(t, "ann", out.Last)
	require.EqualValues(t, 3, calls.Load())
}

// Mirrors LangGraph's retry_policy=[NETWORK_POLICY, VALUE_POLICY] (a node
// with several policies, "only the first matching policy is used — they do
// not combine"): a failure is retried under the first policy whose RetryOn
// matches it, the attempts counted across policies; an error no policy
// matches is not retried.
func TestSeveralRetryPoliciesMatchInOrderByError(t *testing.T) {
	t.Parallel()
	errNetwork := errors.New("connection reset")
	errValue := errors.New("bad value")
	errOther := errors.New("other")
	network := graph.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Microsecond, RetryOn: func(err error) bool { return errors.Is(err, errNetwork) }}
	value := graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Microsecond, RetryOn: func(err error) bool { return errors.Is(err, errValue) }}
	cases := []struct {
		name      string
		failures  []error // the errors of the first attempts, in order; then success
		wantCalls int
		wantErr   error
	}{
		{"network twice, then success on attempt 3", []error{errNetwork, errNetwork}, 3, nil},
		{"network four times: five attempts allowed", []error{errNetwork, errNetwork, errNetwork, errNetwork}, 5, nil},
		{"value once: two attempts allowed", []error{errValue}, 2, nil},
		{"value twice: gives up at the value policy's two", []error{errValue, errValue}, 2, errValue},
		{"attempts count across policies: a value error at attempt 3", []error{errNetwork, errNetwork, errValue}, 3, errValue},
		{"an error no policy matches is not retried", []error{errOther}, 1, errOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			g := graph.New(schema).AddNode("unreliable", func(ctx context.Context, s counter) (state.Update[counter], error) {
				n := int(calls.Add(1))
				if n <= len(tc.failures) {
					return state.Update[counter]{}, tc.failures[n-1]
				}
				return state.Writes(nField.Set(s.N + 1)), nil
			}, graph.WithRetry(network), graph.WithRetry(value)).AddEdge(graph.Start, "unreliable")
			out, err := mustCompile(t, g).Invoke(t.Context(), zero)
			require.EqualValues(t, tc.wantCalls, calls.Load())
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				var ne *graph.NodeError
				require.ErrorAs(t, err, &ne)
				require.Equal(t, tc.wantCalls, ne.Attempts)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 1, out.N)
		})
	}
	// Both policies in one WithRetry are the same as two WithRetry.
	var calls atomic.Int64
	g := graph.New(schema).AddNode("unreliable", func(ctx context.Context, s counter) (state.Update[counter], error) {
		if calls.Add(1) == 1 {
			return state.Update[counter]{}, errValue
		}
		return state.Writes(nField.Set(1)), nil
	}, graph.WithRetry(network, value)).AddEdge(graph.Start, "unreliable")
	_, err := mustCompile(t, g).Invoke(t.Context(), zero)
	require.NoError(t, err)
	require.EqualValues(t, 2, calls.Load())
}
