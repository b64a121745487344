package graph_test

import (
	"context"
	"fmt"
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

// Mirrors test_in_one_fan_out_state_graph_waiting_edge_via_branch and
// LangGraph's channel semantics (a node's trigger channel is read once per
// step): a node triggered in one step by several mechanisms — static edge,
// router, goto — runs once.
func TestNodeTriggeredManyWaysInOneStepRunsOnce(t *testing.T) {
	t.Parallel()
	gotoC := func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"b"})}, Goto: []string{"c"}}, nil
	}
	cases := []struct {
		name  string
		build func(g *graph.StateGraph[counter], cs *calls)
	}{
		{"static and router", func(g *graph.StateGraph[counter], cs *calls) {
			g.AddNode("b", cs.track("b")).AddEdge("a", "c").AddConditionalEdges("b", routeTo("c"), "c", graph.End)
		}},
		{"static and goto", func(g *graph.StateGraph[counter], cs *calls) {
			g.AddNode("b", gotoC, graph.WithDestinations("c")).AddEdge("a", "c")
		}},
		{"router and goto", func(g *graph.StateGraph[counter], cs *calls) {
			g.AddNode("b", gotoC, graph.WithDestinations("c")).AddConditionalEdges("a", routeTo("c"), "c")
		}},
		{"two routers", func(g *graph.StateGraph[counter], cs *calls) {
			g.AddNode("b", cs.track("b")).AddConditionalEdges("a", routeTo("c"), "c").AddConditionalEdges("b", routeTo("c"), "c")
		}},
		{"goto, router and static from one node", func(g *graph.StateGraph[counter], cs *calls) {
			g.AddNode("b", gotoC, graph.WithDestinations("c")).AddEdge("b", "c").AddConditionalEdges("b", routeTo("c"), "c")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("c", cs.track("c")).
				AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
			tc.build(g, &cs)
			out, err := mustCompile(t, g).Invoke(t.Context(), zero)
			require.NoError(t, err)
			require.Equal(t, 1, cs.get("c"))
			require.Equal(t, []string{"a", "b", "c"}, out.Trail)
		})
	}
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

// The context a node receives may outlive the node: an HTTP transport
// cancels a request's context from its own goroutine. Reusing it for the
// next step would race.
func TestNodeContextMayOutliveTheNode(t *testing.T) {
	t.Parallel()
	var kept []context.Context
	var mu sync.Mutex
	var wg sync.WaitGroup
	g := graph.New(schema).AddNode("loop", func(ctx context.Context, s counter) (state.Update[counter], error) {
		mu.Lock()
		kept = append(kept, ctx)
		mu.Unlock()
		wg.Go(func() { _ = ctx.Err(); _ = ctx.Value(struct{}{}) })
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "loop").
		AddConditionalEdges("loop", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 20 {
				return "loop", nil
			}
			return graph.End, nil
		}), "loop", graph.End)
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	wg.Wait()
	for i := 1; i < len(kept); i++ {
		require.NotSame(t, kept[i-1], kept[i])
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
	require.Equal(t, 2, ne.Step)
	require.NotNil(t, ne.Panic)
	require.Contains(t, string(ne.Stack), "superstep_test.go")
	require.ErrorContains(t, err, `node "boom" panicked at step 2`)
}

// A step's tasks apply in node-name order, whatever order the edges and
// routes that scheduled them were declared in (b10 sorts before b2).
func TestFanOutTasksApplyInNameOrder(t *testing.T) {
	t.Parallel()
	names := []string{"b2", "b10", "b1", "b0"}
	want := []string{"b0", "b1", "b10", "b2"}
	tests := []struct {
		name string
		wire func(g *graph.StateGraph[counter])
	}{
		{"static edges", func(g *graph.StateGraph[counter]) {
			for _, n := range names {
				g.AddEdge("fan", n)
			}
		}},
		{"a router's route", func(g *graph.StateGraph[counter]) {
			g.AddConditionalEdges("fan", func(ctx context.Context, s counter) (graph.Route[counter], error) {
				return graph.Route[counter]{To: names}, nil
			}, names...)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := graph.New(schema).AddNode("fan", visit("fan")).AddEdge(graph.Start, "fan")
			for _, n := range names {
				g.AddNode(n, visit(n))
			}
			tc.wire(g)
			out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
			require.NoError(t, err)
			require.Equal(t, append([]string{"fan"}, want...), out.Trail)
		})
	}
}
