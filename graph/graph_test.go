package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestChainRunsInOrder(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", visit("a")).
		AddNode("b", visit("b")).
		AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", graph.End)
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(lastField.Set("in")))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.Equal(t, "in", out.Last)
}

func TestConditionalLoop(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(s.N + 1)), nil
		}).
		AddEdge(graph.Start, "inc").
		AddConditionalEdges("inc", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 5 {
				return "inc", nil
			}
			return graph.End, nil
		}), "inc", graph.End)
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, 5, out.N)
}

// Writes are applied in task order (nodes by name), never completion order.
func TestDeterministicMergeUnderRandomDelays(t *testing.T) {
	t.Parallel()
	names := []string{"e", "b", "d", "a", "c"}
	g := graph.New(schema)
	for _, n := range names {
		g.AddNode(n, func(ctx context.Context, s counter) (state.Update[counter], error) {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond) // simulated work, not synchronisation
			return state.Writes(trailField.Set([]string{n})), nil
		})
		g.AddEdge(graph.Start, n)
	}
	c := mustCompile(t, g)
	for range 20 {
		out, err := c.Invoke(t.Context(), state.Update[counter]{})
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c", "d", "e"}, out.Trail)
	}
}

func TestJoinWaitsAcrossSteps(t *testing.T) {
	t.Parallel()
	var joined atomic.Int64
	g := graph.New(schema).
		AddNode("fast", visit("fast")).
		AddNode("slow1", visit("slow1")).
		AddNode("slow2", visit("slow2")).
		AddNode("join", counted(&joined, visit("join"))).
		AddEdge(graph.Start, "fast").AddEdge(graph.Start, "slow1").
		AddEdge("slow1", "slow2").
		AddJoin([]string{"fast", "slow2"}, "join")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"fast", "slow1", "slow2", "join"}, out.Trail)
	require.EqualValues(t, 1, joined.Load())
}

func TestSeveralTriggersStartANodeOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddNode("c", counted(&calls, visit("c"))).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").
		AddEdge("a", "c").AddEdge("b", "c")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.EqualValues(t, 1, calls.Load())
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
}

func TestConflictingLastValueWritesNameFieldAndNodes(t *testing.T) {
	t.Parallel()
	set := func(v string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set(v)), nil
		}
	}
	g := graph.New(schema).AddNode("left", set("l")).AddNode("right", set("r")).
		AddEdge(graph.Start, "left").AddEdge(graph.Start, "right")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrInvalidUpdate)
	require.ErrorContains(t, err, `field "last"`)
	require.ErrorContains(t, err, `"left" and "right"`)
	require.ErrorContains(t, err, "step 0")
}

func TestOverwriteReplacesReducerValue(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("add", visit("add")).
		AddNode("reset", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(trailField.Overwrite([]string{"reset"})), nil
		}).
		AddEdge(graph.Start, "add").AddEdge(graph.Start, "reset")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(trailField.Set([]string{"input"})))
	require.NoError(t, err)
	require.Equal(t, []string{"reset"}, out.Trail)
}

func TestSendFanOutWithPerSendInput(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("split", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, nil
		}).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{s.Last + "!"}), totalField.Set(len(s.Last))), nil
		}).
		AddNode("reduce", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set(fmt.Sprint(len(s.Items)))), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			var out []graph.Send[counter]
			for _, w := range []string{"x", "yy", "zzz"} {
				out = append(out, graph.SendTo("work", counter{Last: w}))
			}
			return out, nil
		}), "work").
		AddEdge("work", "reduce")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"x!", "yy!", "zzz!"}, out.Items) // Sends by index
	require.Equal(t, 6, out.Total)
	require.Equal(t, "3", out.Last)
}

func TestGotoWithWrites(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: []string{"c"}}, nil
		}, graph.WithDestinations("b", "c")).
		AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a")
	c := mustCompile(t, g)
	out, err := c.Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, out.Trail)
	require.Contains(t, c.Mermaid(), "\ta -.-> c;")
}

func TestRecursionLimitExactlyAtN(t *testing.T) {
	t.Parallel()
	chain := func(n int) *graph.Compiled[counter] {
		g := graph.New(schema)
		prev := graph.Start
		for i := range n {
			name := fmt.Sprint("n", i)
			g.AddNode(name, visit(name)).AddEdge(prev, name)
			prev = name
		}
		return mustCompile(t, g)
	}
	_, err := chain(5).Invoke(t.Context(), state.Update[counter]{}, graph.WithRecursionLimit(5))
	require.NoError(t, err)
	_, err = chain(6).Invoke(t.Context(), state.Update[counter]{}, graph.WithRecursionLimit(5))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	require.ErrorContains(t, err, "5 steps")
	require.ErrorContains(t, err, "WithRecursionLimit")
	_, err = chain(26).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	_, err = chain(25).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
}

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

func TestPanicBecomesNodeError(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("ok", visit("ok")).
		AddNode("boom", func(ctx context.Context, s counter) (state.Update[counter], error) {
			panic("the node broke")
		}).
		AddEdge(graph.Start, "ok").AddEdge("ok", "boom")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	var ne *graph.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "boom", ne.Node)
	require.Equal(t, 1, ne.Step)
	require.NotNil(t, ne.Panic)
	require.Contains(t, string(ne.Stack), "graph_test.go")
	require.ErrorContains(t, err, `node "boom" panicked at step 1`)
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
		<-ctx.Done()
		return state.Update[counter]{}, ctx.Err()
	}, graph.WithTimeout(time.Millisecond)).AddEdge(graph.Start, "slow")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrNodeTimeout)
	require.ErrorContains(t, err, `node "slow"`)
}

func TestCancellationStopsPromptly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			close(started)
			<-ctx.Done()
			return state.Update[counter]{}, ctx.Err()
		}).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			<-ctx.Done()
			return state.Update[counter]{}, ctx.Err()
		}).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	c := mustCompile(t, g)
	go func() {
		<-started
		cancel()
	}()
	_, err := c.Invoke(ctx, state.Update[counter]{})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "run stopped at step 0")
}

func TestRouterErrorsNameTheNode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", graph.Choose(func(ctx context.Context, s counter) (string, error) { return "nowhere", nil }), "b", graph.End)
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrInvalidRoute)
	var re *graph.RouteError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "a", re.Node)
	require.ErrorContains(t, err, `"nowhere"`)
}

func TestPathMapLabels(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").
		AddConditionalEdgesMap("a", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			return "continue", nil
		}), map[string]string{"continue": "b", "stop": graph.End})
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
}

func TestRouterSeesOwnWritesNotSiblings(t *testing.T) {
	t.Parallel()
	var seen []string
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").
		AddConditionalEdges("a", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			seen = append([]string(nil), s.Trail...)
			return graph.End, nil
		}), graph.End)
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(trailField.Set([]string{"in"})))
	require.NoError(t, err)
	require.Equal(t, []string{"in", "a"}, seen)
	require.Equal(t, []string{"in", "a", "b"}, out.Trail)
}

// Tasks that block until all their siblings have started still all run:
// the scheduler adds workers while a step makes no progress.
func TestBlockingTasksAllRunConcurrently(t *testing.T) {
	t.Parallel()
	const n = 20
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	g := graph.New(schema).AddNode("fan", visit("fan")).AddEdge(graph.Start, "fan")
	for i := range n {
		name := fmt.Sprint("w", i)
		g.AddNode(name, func(ctx context.Context, s counter) (state.Update[counter], error) {
			started.Done()
			select {
			case <-all:
				return state.Writes(totalField.Set(1)), nil
			case <-ctx.Done():
				return state.Update[counter]{}, ctx.Err()
			}
		}).AddEdge("fan", name)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := mustCompile(t, g).Invoke(ctx, state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, n, out.Total)
}

func TestMaxConcurrencyBoundsTasks(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int64
	g := graph.New(schema).AddNode("fan", visit("fan")).AddEdge(graph.Start, "fan")
	for i := range 12 {
		name := fmt.Sprint("w", i)
		g.AddNode(name, func(ctx context.Context, s counter) (state.Update[counter], error) {
			now := running.Add(1)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			time.Sleep(200 * time.Microsecond) // simulated work, not synchronisation
			running.Add(-1)
			return state.Writes(totalField.Set(1)), nil
		}).AddEdge("fan", name)
	}
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{}, graph.WithMaxConcurrency(3))
	require.NoError(t, err)
	require.Equal(t, 12, out.Total)
	require.LessOrEqual(t, peak.Load(), int64(3))
}
