package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// effects counts the calls of Durable's functions by key.
type effects struct {
	mu sync.Mutex
	n  map[string]int
}

func (e *effects) fn(key string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.n == nil {
			e.n = map[string]int{}
		}
		e.n[key]++
		return "result of " + key, nil
	}
}

func (e *effects) calls() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]int{}
	for k, v := range e.n {
		out[k] = v
	}
	return out
}

// durableNode calls Durable for keys in order and records the results in
// items; fail, when it returns an error, fails the node after the call
// whose index it is given.
func durableNode(e *effects, keys []string, fail func(after int) error) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		var got []string
		for i, k := range keys {
			v, err := graph.Durable(ctx, k, e.fn(k))
			if err != nil {
				return zero, err
			}
			got = append(got, v)
			if err := fail(i); err != nil {
				return zero, err
			}
		}
		return state.Writes(itemsField.Set(got)), nil
	}
}

// A node that called Durable for three keys and then failed finds the
// three results saved when it runs again: on every backend, in a graph
// compiled anew (another process), fn ran once per key.
func TestDurableResultsSurviveAFailedNode(t *testing.T) {
	t.Parallel()
	keys := []string{"k1", "k2", "k3"}
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var e effects
			failing := atomic.Bool{}
			failing.Store(true)
			build := func() *graph.Compiled[counter] {
				return mustCompile(t, graph.New(schema).
					AddNode("pay", durableNode(&e, keys, func(after int) error {
						if after == len(keys)-1 && failing.Load() {
							return errors.New("down after the effects")
						}
						return nil
					})).
					AddEdge(graph.Start, "pay"), graph.WithCheckpointer(saver))
			}
			_, err := build().Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
			require.ErrorContains(t, err, "down after the effects")
			failing.Store(false)
			out, err := build().Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, []string{"result of k1", "result of k2", "result of k3"}, out.Items)
			assert.Equal(t, map[string]int{"k1": 1, "k2": 1, "k3": 1}, e.calls())
		})
	}
}

// A node stopped half way (the process crashed, or was cancelled, after
// two of three effects) runs only the third on resume.
func TestDurableResumeRunsOnlyWhatWasNotSaved(t *testing.T) {
	t.Parallel()
	keys := []string{"k1", "k2", "k3"}
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var e effects
			ctx, cancel := context.WithCancel(t.Context())
			stop := atomic.Bool{}
			stop.Store(true)
			build := func() *graph.Compiled[counter] {
				return mustCompile(t, graph.New(schema).
					AddNode("pay", durableNode(&e, keys, func(after int) error {
						if after == 1 && stop.Load() {
							cancel() // the run stops here, as a crash would
							return context.Canceled
						}
						return nil
					})).
					AddEdge(graph.Start, "pay"), graph.WithCheckpointer(saver))
			}
			_, err := build().Invoke(ctx, state.Writes(nField.Set(1)), graph.WithThread("t"))
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, map[string]int{"k1": 1, "k2": 1}, e.calls())
			stop.Store(false)
			out, err := build().Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, []string{"result of k1", "result of k2", "result of k3"}, out.Items)
			assert.Equal(t, map[string]int{"k1": 1, "k2": 1, "k3": 1}, e.calls())
		})
	}
}

// The step's checkpoint failing to save (the process dying before it) is
// a crash too: the node runs again, its Durable results do not.
func TestDurableResultsOutliveALostCheckpoint(t *testing.T) {
	t.Parallel()
	var e effects
	saver := newRecordingSaver()
	var failPut atomic.Bool
	saver.beforePut = func(req checkpoint.PutRequest) error {
		if failPut.Load() && req.Metadata.Step == 1 {
			return errors.New("disk gone")
		}
		return nil
	}
	failPut.Store(true)
	c := mustCompile(t, graph.New(schema).
		AddNode("pay", durableNode(&e, []string{"k1", "k2"}, func(int) error { return nil })).
		AddEdge(graph.Start, "pay"), graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "disk gone")
	failPut.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, []string{"result of k1", "result of k2"}, out.Items)
	assert.Equal(t, map[string]int{"k1": 1, "k2": 1}, e.calls())
}

// Goroutines of one node call Durable with different keys at once; a node
// that failed after them finds every result on resume. Two calls with one
// key run fn once.
func TestDurableConcurrentCalls(t *testing.T) {
	t.Parallel()
	const n = 16
	var e effects
	var failing atomic.Bool
	failing.Store(true)
	node := func(ctx context.Context, s counter) (state.Update[counter], error) {
		var wg sync.WaitGroup
		got := make([]string, n+2)
		errs := make([]error, n+2)
		for i := range n + 2 {
			key := "k" + strconv.Itoa(min(i, n)) // the last three share key n
			wg.Go(func() { got[i], errs[i] = graph.Durable(ctx, key, e.fn(key)) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return zero, err
		}
		if failing.Load() {
			return zero, errors.New("down")
		}
		return state.Writes(itemsField.Set(got)), nil
	}
	// Two nodes in one step, so that each task's writes are its own.
	c := mustCompile(t, graph.New(schema).
		AddNode("a", node).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b"), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "down")
	failing.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Len(t, out.Items, n+2)
	for i, v := range out.Items {
		assert.Equal(t, "result of k"+strconv.Itoa(min(i, n)), v)
	}
	want := map[string]int{}
	for i := range n + 1 {
		want["k"+strconv.Itoa(i)] = 1
	}
	assert.Equal(t, want, e.calls())
}

// A retry of WithRetry finds the results of the attempts before it.
func TestDurableRetryReusesResults(t *testing.T) {
	t.Parallel()
	var e effects
	attempts := 0
	node := func(ctx context.Context, s counter) (state.Update[counter], error) {
		attempts++
		v, err := graph.Durable(ctx, "charge", e.fn("charge"))
		if err != nil {
			return zero, err
		}
		if attempts < 3 {
			return zero, errors.New("flaky")
		}
		return state.Writes(lastField.Set(v)), nil
	}
	c := mustCompile(t, graph.New(schema).
		AddNode("pay", node, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond})).
		AddEdge(graph.Start, "pay"), graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, "result of charge", out.Last)
	assert.Equal(t, 3, attempts)
	assert.Equal(t, map[string]int{"charge": 1}, e.calls())
}

// A node that made an effect and then asked a human makes it once: the
// resumed node gets the saved result.
func TestDurableAcrossAnInterrupt(t *testing.T) {
	t.Parallel()
	var e effects
	node := func(ctx context.Context, s counter) (state.Update[counter], error) {
		quote, err := graph.Durable(ctx, "quote", e.fn("quote"))
		if err != nil {
			return zero, err
		}
		ok, err := graph.Interrupt[bool](ctx, quote)
		if err != nil {
			return zero, err
		}
		return state.Writes(lastField.Set(fmt.Sprint(quote, " ", ok))), nil
	}
	c := mustCompile(t, graph.New(schema).AddNode("ask", node).AddEdge(graph.Start, "ask"), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "result of quote", ie.Interrupts[0].Value)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume(true))
	require.NoError(t, err)
	assert.Equal(t, "result of quote true", out.Last)
	assert.Equal(t, map[string]int{"quote": 1}, e.calls())
}

// An error of fn is not saved: the next run calls fn again.
func TestDurableErrorsAreNotSaved(t *testing.T) {
	t.Parallel()
	calls := 0
	fn := func(context.Context) (int, error) {
		calls++
		if calls == 1 {
			return 0, errors.New("refused")
		}
		return 42, nil
	}
	c := mustCompile(t, graph.New(schema).AddNode("pay", func(ctx context.Context, s counter) (state.Update[counter], error) {
		v, err := graph.Durable(ctx, "charge", fn)
		if err != nil {
			return zero, err
		}
		return state.Writes(nField.Set(v)), nil
	}).AddEdge(graph.Start, "pay"), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "refused")
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, 42, out.N)
	assert.Equal(t, 2, calls)
}

// The results are pending writes of the running task on a reserved channel
// (no state field can take its name) with negative indices, so they never
// mark the task finished; they go once the step's checkpoint is stored,
// and a key means a result within its task only: the same node in the
// next step calls fn again.
func TestDurableResultsArePendingWritesOfTheirTask(t *testing.T) {
	t.Parallel()
	var e effects
	var failing atomic.Bool
	failing.Store(true)
	rounds := 0
	saver := memory.New()
	c := mustCompile(t, graph.New(schema).
		AddNode("pay", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if _, err := graph.Durable(ctx, "charge", e.fn("charge")); err != nil {
				return zero, err
			}
			if failing.Load() {
				return zero, errors.New("down")
			}
			rounds++
			return state.Writes(nField.Set(s.N + 1)), nil
		}).
		AddConditionalEdges("pay", func(ctx context.Context, s counter) (graph.Route[counter], error) {
			if s.N < 3 {
				return graph.Route[counter]{To: []string{"pay"}}, nil
			}
			return graph.Route[counter]{To: []string{graph.End}}, nil
		}, "pay", graph.End).
		AddEdge(graph.Start, "pay"), graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.Error(t, err)

	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	var durable []checkpoint.PendingWrite
	for _, w := range tup.PendingWrites {
		if w.Channel != checkpoint.ErrorChannel {
			durable = append(durable, w)
		}
	}
	require.Len(t, durable, 1)
	assert.True(t, checkpoint.IsReserved(durable[0].Channel), "channel %q", durable[0].Channel)
	assert.Less(t, durable[0].Index, checkpoint.ResumeIndex)
	assert.Empty(t, checkpoint.FinishedTasks(tup.PendingWrites), "a Durable result does not finish its task")
	require.Error(t, state.NewSchema(state.Value(durable[0].Channel, func(s *counter) *int { return &s.N })).Err(),
		"no state field may take the channel's name")

	failing.Store(false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, 3, out.N)
	assert.Equal(t, 2, rounds)
	// Once in step 1 (kept across the failure), once in step 2.
	assert.Equal(t, map[string]int{"charge": 2}, e.calls())
	latest, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	assert.Empty(t, latest.PendingWrites)
}

// Without a checkpointer, and outside a node, fn simply runs.
func TestDurableWithoutACheckpointerRuns(t *testing.T) {
	t.Parallel()
	var e effects
	v, err := graph.Durable(t.Context(), "k", e.fn("k"))
	require.NoError(t, err)
	assert.Equal(t, "result of k", v)
	attempts := 0
	c := mustCompile(t, graph.New(schema).AddNode("pay", func(ctx context.Context, s counter) (state.Update[counter], error) {
		attempts++
		if _, err := graph.Durable(ctx, "k", e.fn("k")); err != nil {
			return zero, err
		}
		if attempts < 2 {
			return zero, errors.New("flaky")
		}
		return zero, nil
	}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Microsecond})).AddEdge(graph.Start, "pay"))
	_, err = c.Invoke(t.Context(), state.Writes(nField.Set(1)))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"k": 3}, e.calls())
}

// Under every durability a failed node's results are kept (under
// DurabilityExit they are stored when the run ends).
func TestDurableUnderEveryDurability(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			t.Parallel()
			var e effects
			var failing atomic.Bool
			failing.Store(true)
			c := mustCompile(t, graph.New(schema).
				AddNode("a", visit("a")).
				AddNode("pay", durableNode(&e, []string{"k1", "k2"}, func(after int) error {
					if after == 1 && failing.Load() {
						return errors.New("down")
					}
					return nil
				})).
				AddEdge(graph.Start, "a").AddEdge("a", "pay"), graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
			require.Error(t, err)
			failing.Store(false)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			assert.Equal(t, []string{"result of k1", "result of k2"}, out.Items)
			assert.Equal(t, map[string]int{"k1": 1, "k2": 1}, e.calls())
		})
	}
}
