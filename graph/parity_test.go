package graph_test

// Parity tests: behaviours ported from LangGraph's own test-suite
// (libs/langgraph/tests/test_pregel.py, test_pregel_async.py,
// test_interruption.py, test_checkpoint*.py in langchain-ai/langgraph).
// Each test names the LangGraph test or behaviour it mirrors. They use the
// counter state of helpers_test.go.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// ---- helpers ----------------------------------------------------------

// calls counts node runs by name, safely across goroutines.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) inc(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *calls) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// track returns a node that counts its runs and appends its name to the
// trail.
func (c *calls) track(name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		c.inc(name)
		return state.Writes(trailField.Set([]string{name})), nil
	}
}

// routeTo is a Router that always returns the given targets.
func routeTo(to ...string) graph.Router[counter] {
	return func(ctx context.Context, s counter) (graph.Route[counter], error) {
		return graph.Route[counter]{To: to}, nil
	}
}

func parHistory(t *testing.T, c *graph.Compiled[counter], thread string) []*graph.Snapshot[counter] {
	t.Helper()
	var out []*graph.Snapshot[counter]
	for s, err := range c.History(t.Context(), graph.WithThread(thread)) {
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

func parState(t *testing.T, c *graph.Compiled[counter], thread string) *graph.Snapshot[counter] {
	t.Helper()
	s, err := c.State(t.Context(), graph.WithThread(thread))
	require.NoError(t, err)
	return s
}

// askNode interrupts with payload and appends the answer to items.
func askNode(c *calls, name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		c.inc(name)
		v, err := graph.Interrupt[string](ctx, name+"?")
		if err != nil {
			return state.Update[counter]{}, err
		}
		return state.Writes(itemsField.Set([]string{v})), nil
	}
}

var zero = state.Update[counter]{}

// ---- routing and scheduling --------------------------------------------

// Mirrors test_conditional_entrypoint_to_multiple_state_graph and
// test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge: a
// conditional edge returns several nodes at once; they run in the same
// step, and a join (add_edge([x, y], z)) after them runs once.
func TestParityConditionalFanOutThenJoin(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("route", cs.track("route")).
		AddNode("x", cs.track("x")).AddNode("y", cs.track("y")).AddNode("z", cs.track("z")).
		AddEdge(graph.Start, "route").
		AddConditionalEdges("route", routeTo("x", "y"), "x", "y", graph.End).
		AddJoin([]string{"x", "y"}, "z")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Writes(lastField.Set("in")), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"route", "x", "y", "z"}, out.Trail)
	require.Equal(t, 1, cs.get("z"))
	hist := parHistory(t, c, "t")
	require.Len(t, hist, 4)
	require.Equal(t, []string{"x", "y"}, hist[1].Metadata.Nodes, "x and y ran in the same step")
}

// Mirrors test_in_one_fan_out_state_graph_waiting_edge_via_branch and
// LangGraph's channel semantics (a node's trigger channel is read once per
// step): a node triggered in one step by several mechanisms — static edge,
// router, goto — runs once.
func TestParityNodeTriggeredManyWaysInOneStepRunsOnce(t *testing.T) {
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

// Mirrors test_send_sequences / test_send_dedupe_on_resume (PUSH vs PULL
// tasks): a node reached in one step by an edge and by a Send runs twice —
// once on the state, once on the Send's argument — and the node's static
// edge after it triggers its successor once.
func TestParitySendAndEdgeToSameNode(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("a", cs.track("a")).
		AddNode("w", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("w")
			return state.Writes(itemsField.Set([]string{"w:" + s.Last})), nil
		}).
		AddNode("after", cs.track("after")).
		AddEdge(graph.Start, "a").
		AddEdge("a", "w").
		AddConditionalEdges("a", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("w", counter{Last: "sent"})}, nil
		}), "w").
		AddEdge("w", "after")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(lastField.Set("state")))
	require.NoError(t, err)
	require.Equal(t, 2, cs.get("w"))
	require.Equal(t, []string{"w:state", "w:sent"}, out.Items, "the triggered task applies before the Send")
	require.Equal(t, 1, cs.get("after"))
	require.Equal(t, []string{"a", "after"}, out.Trail)
}

// Mirrors LangGraph's Command(goto=...) semantics (test_command_goto_*,
// "goto is in addition to static edges"): a node's goto and its static
// edges are both followed; goto END adds nothing and does not cut the
// static edges.
func TestParityGotoWithStaticEdges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		to   []string
		want []string
	}{
		{"goto a node", []string{"c"}, []string{"a", "b", "c"}},
		{"goto End", []string{graph.End}, []string{"a", "b"}},
		{"goto a node and End", []string{graph.End, "c"}, []string{"a", "b", "c"}},
		{"goto the static target", []string{"b"}, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
					return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: tc.to}, nil
				}, graph.WithDestinations("c", graph.End)).
				AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
				AddEdge(graph.Start, "a").AddEdge("a", "b")
			out, err := mustCompile(t, g).Invoke(t.Context(), zero)
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Trail)
			require.LessOrEqual(t, cs.get("b"), 1)
		})
	}
	// goto End from a node without edges ends the run.
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Writes: []state.Write[counter]{trailField.Set([]string{"a"})}, Goto: []string{graph.End}}, nil
		}, graph.WithDestinations(graph.End)).
		AddEdge(graph.Start, "a")
	out, err := mustCompile(t, g).Invoke(t.Context(), zero)
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, out.Trail)
}

// Mirrors LangGraph branches returning a list containing END
// (test_conditional_graph, "END in a multi-destination route"): END is
// ignored, the other destinations run.
func TestParityRouteWithEndAndNode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", routeTo(graph.End, "b"), "b", graph.End)
	out, err := mustCompile(t, g).Invoke(t.Context(), zero)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
}

// Mirrors LangGraph's waiting edges (NamedBarrierValue channel;
// test_in_one_fan_out_state_graph_waiting_edge,
// test_state_graph_w_config_inherited_state_keys loops): a join fires once
// per round when every source ran, re-arms for the next round of a loop,
// and never fires when a source did not run.
func TestParityJoinRearmsAndWaitsForEverySource(t *testing.T) {
	t.Parallel()
	t.Run("re-arms in a loop", func(t *testing.T) {
		t.Parallel()
		var cs calls
		g := graph.New(schema).
			AddNode("s", cs.track("s")).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).
			AddNode("j", func(ctx context.Context, s counter) (state.Update[counter], error) {
				cs.inc("j")
				return state.Writes(nField.Set(s.N+1), trailField.Set([]string{"j"})), nil
			}).
			AddEdge(graph.Start, "s").AddEdge("s", "a").AddEdge("s", "b").
			AddJoin([]string{"a", "b"}, "j").
			AddConditionalEdges("j", graph.Choose(func(ctx context.Context, s counter) (string, error) {
				if s.N < 2 {
					return "s", nil
				}
				return graph.End, nil
			}), "s", graph.End)
		out, err := mustCompile(t, g).Invoke(t.Context(), zero)
		require.NoError(t, err)
		require.Equal(t, 2, cs.get("j"))
		require.Equal(t, []string{"s", "a", "b", "j", "s", "a", "b", "j"}, out.Trail)
	})
	t.Run("a source that never runs", func(t *testing.T) {
		t.Parallel()
		var cs calls
		g := graph.New(schema).
			AddNode("s", cs.track("s")).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).AddNode("j", cs.track("j")).
			AddEdge(graph.Start, "s").
			AddConditionalEdges("s", routeTo("a"), "a", "b").
			AddJoin([]string{"a", "b"}, "j")
		out, err := mustCompile(t, g).Invoke(t.Context(), zero)
		require.NoError(t, err)
		require.Equal(t, 0, cs.get("j"))
		require.Equal(t, []string{"s", "a"}, out.Trail)
	})
}

// Mirrors test_recursion_limit / GraphRecursionError: the limit bounds the
// supersteps of one call (LangGraph: stop = step + recursion_limit), so a
// resumed call gets a fresh budget, and a run needing exactly the limit
// succeeds.
func TestParityRecursionLimitIsPerCall(t *testing.T) {
	t.Parallel()
	loop := func(until int) *graph.StateGraph[counter] {
		return graph.New(schema).AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(s.N + 1)), nil
		}).AddEdge(graph.Start, "inc").
			AddConditionalEdges("inc", graph.Choose(func(ctx context.Context, s counter) (string, error) {
				if s.N < until {
					return "inc", nil
				}
				return graph.End, nil
			}), "inc", graph.End)
	}
	cases := []struct {
		limit, until int
		want         []int // N after each call; the last call succeeds
	}{
		{3, 3, []int{3}},
		{3, 4, []int{3, 4}},
		{3, 7, []int{3, 6, 7}},
		{1, 2, []int{1, 2}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("limit %d until %d", tc.limit, tc.until), func(t *testing.T) {
			t.Parallel()
			c := mustCompile(t, loop(tc.until), graph.WithCheckpointer(memory.New()))
			for i, want := range tc.want {
				out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithRecursionLimit(tc.limit))
				if i < len(tc.want)-1 {
					require.ErrorIs(t, err, graph.ErrRecursionLimit, "call %d", i)
				} else {
					require.NoError(t, err, "call %d", i)
				}
				require.Equal(t, want, out.N, "call %d", i)
			}
		})
	}
}

// ---- failures and resume ---------------------------------------------

// Mirrors test_pending_writes_resume (parametrized over durability):
// "one" succeeds, "two" fails after its retries; the checkpoint is not
// advanced, one's writes are kept as pending writes and shown by
// get_state, two's error is recorded; resuming runs only two.
func TestParityPendingWritesResumeWithRetry(t *testing.T) {
	t.Parallel()
	for _, d := range []struct {
		name string
		mode graph.Durability
	}{{"sync", graph.DurabilitySync}, {"exit", graph.DurabilityExit}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			var fail atomic.Bool
			fail.Store(true)
			g := graph.New(schema).
				AddNode("pre", cs.track("pre")).
				AddNode("one", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("one")
					return state.Writes(totalField.Set(2)), nil
				}).
				AddNode("two", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("two")
					if fail.Load() {
						return state.Update[counter]{}, errors.New("I'm not good")
					}
					return state.Writes(totalField.Set(3)), nil
				}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})).
				AddEdge(graph.Start, "pre").AddEdge("pre", "one").AddEdge("pre", "two")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d.mode))
			_, err := c.Invoke(t.Context(), state.Writes(totalField.Set(1)), graph.WithThread("t"))
			require.ErrorContains(t, err, "I'm not good")
			require.Equal(t, 1, cs.get("one"))
			require.Equal(t, 2, cs.get("two"))

			snap := parState(t, c, "t")
			require.Equal(t, 3, snap.Values.Total, "one's pending write is applied to the latest state")
			require.Equal(t, []string{"two"}, snap.Next)
			require.Equal(t, 0, snap.Metadata.Step, "the failed step saved no checkpoint")
			require.Len(t, snap.Tasks, 2)
			require.True(t, snap.Tasks[0].Done)
			require.Equal(t, "one", snap.Tasks[0].Node)
			require.Contains(t, snap.Tasks[1].Error, "I'm not good")
			require.Len(t, parHistory(t, c, "t"), 2)

			fail.Store(false)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, 6, out.Total)
			require.Equal(t, 1, cs.get("pre"))
			require.Equal(t, 1, cs.get("one"), "one finished before and is not run again")
			require.Equal(t, 3, cs.get("two"))
			hist := parHistory(t, c, "t")
			require.Len(t, hist, 3)
			require.Equal(t, []string{"one", "two"}, hist[0].Metadata.Nodes)
			require.Equal(t, hist[1].Config.CheckpointID, hist[0].Parent.CheckpointID)
		})
	}
}

// Mirrors LangGraph's pending-write matching (PregelLoop: a task with
// successful writes is done, whatever ERROR write it also has): two
// parallel tasks fail; on the first resume one of them succeeds while the
// other fails again; on the second resume the one that succeeded must not
// run a third time.
func TestParityTaskFixedOnResumeIsNotRerunWhileSiblingStillFails(t *testing.T) {
	t.Parallel()
	var cs calls
	var aFails, bFails atomic.Int64
	aFails.Store(1)
	bFails.Store(2)
	flaky := func(name string, fails *atomic.Int64) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc(name)
			if fails.Add(-1) >= 0 {
				return state.Update[counter]{}, errors.New(name + " failed")
			}
			return state.Writes(itemsField.Set([]string{name})), nil
		}
	}
	g := graph.New(schema).AddNode("a", flaky("a", &aFails)).AddNode("b", flaky("b", &bFails)).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	snap := parState(t, c, "t")
	require.Equal(t, []string{"b"}, snap.Next, "a succeeded on the first resume")
	require.Equal(t, []string{"a"}, snap.Values.Items)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Items)
	require.Equal(t, 2, cs.get("a"), "a succeeded on the first resume and ran again on the second")
	require.Equal(t, 3, cs.get("b"))
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted: "agent" and
// "bad" run in one step; bad interrupts. agent is not cancelled, its
// writes are kept, and resuming runs only bad.
func TestParityInterruptDoesNotRerunFinishedSibling(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("agent", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("agent")
			return state.Writes(itemsField.Set([]string{"again"})), nil
		}).
		AddNode("bad", askNode(&cs, "bad")).
		AddConditionalEdges(graph.Start, routeTo("agent", "bad"), "agent", "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"world"})), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "bad", ie.Interrupts[0].Node)

	snap := parState(t, c, "t")
	require.Equal(t, []string{"world", "again"}, snap.Values.Items)
	require.Equal(t, []string{"bad"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("bye"))
	require.NoError(t, err)
	require.Equal(t, []string{"world", "again", "bye"}, out.Items)
	require.Equal(t, 1, cs.get("agent"))
	require.Equal(t, 2, cs.get("bad"))
	require.Empty(t, parState(t, c, "t").Interrupts)
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted's first
// assertion ("writes from awhile are applied to last chunk"): the output of
// a run stopped by an interrupt includes the writes of the step's tasks
// that finished.
func TestParityInterruptOutputIncludesFinishedSiblings(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("agent", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"again"})), nil
		}).
		AddNode("bad", askNode(&cs, "bad")).
		AddConditionalEdges(graph.Start, routeTo("agent", "bad"), "agent", "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"world"})), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.Equal(t, parState(t, c, "t").Values, out, "Invoke's state differs from State() for the same moment")
	require.Equal(t, []string{"world", "again"}, out.Items)
}

// Mirrors test_send_react_interrupt / interrupt_before with Send (PUSH
// tasks are subject to interrupt_before like PULL ones): the run stops
// before the Send tasks run, State lists them as next, and resuming runs
// each with its own argument.
func TestParityInterruptBeforeSendTarget(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("split", cs.track("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "x"}), graph.SendTo("work", counter{Last: "y"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("work"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	for _, in := range ie.Interrupts {
		require.Equal(t, "work", in.Node)
		require.Equal(t, "before", in.When)
	}
	require.Equal(t, 0, cs.get("work"))
	snap := parState(t, c, "t")
	require.Equal(t, []string{"work", "work"}, snap.Next)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"x", "y"}, out.Items)
	require.Equal(t, 2, cs.get("work"))
}

// Mirrors test_multiple_interrupt_state_persistence / test_parallel_interrupts
// (Command(resume={id: value}) answering a subset): two parallel nodes
// interrupt; answering one by id finishes it and leaves the other pending;
// the other is then answered alone with a single value.
func TestParityPartialResumeByID(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("x", askNode(&cs, "x")).AddNode("y", askNode(&cs, "y")).
		AddEdge(graph.Start, "x").AddEdge(graph.Start, "y")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	ids := map[string]string{}
	for _, in := range ie.Interrupts {
		ids[in.Node] = in.ID
	}

	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.ResumeByID(map[string]any{ids["x"]: "X"}))
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "y", ie.Interrupts[0].Node)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"y"}, snap.Next)
	require.Len(t, snap.Interrupts, 1, "x was answered; only y's interrupt is pending")
	require.Equal(t, []string{"X"}, snap.Values.Items)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("Y"))
	require.NoError(t, err)
	require.Equal(t, []string{"X", "Y"}, out.Items)
	require.Equal(t, 2, cs.get("x"))
	require.Equal(t, 3, cs.get("y"))
}

// Mirrors test_interruption.py and LangGraph's get_state after stops:
// State().Next and tasks after interrupt_before, a dynamic interrupt, a
// node error, and interrupt_after.
func TestParityStateNextAfterStops(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		opts       []graph.CompileOption
		bNode      func(cs *calls) graph.NodeFunc[counter]
		wantErr    error
		next       []string
		trail      []string
		interrupts []string // When of each pending interrupt
		taskErr    string
	}{
		{"interrupt before", []graph.CompileOption{graph.WithInterruptBefore("b")}, func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") },
			graph.ErrInterrupted, []string{"b"}, []string{"a"}, []string{"before"}, ""},
		{"dynamic interrupt", nil, func(cs *calls) graph.NodeFunc[counter] { return askNode(cs, "b") },
			graph.ErrInterrupted, []string{"b"}, []string{"a"}, []string{"during"}, ""},
		{"error", nil, func(cs *calls) graph.NodeFunc[counter] {
			return func(ctx context.Context, s counter) (state.Update[counter], error) {
				return state.Update[counter]{}, errors.New("b broke")
			}
		}, nil, []string{"b"}, []string{"a"}, nil, "b broke"},
		{"interrupt after", []graph.CompileOption{graph.WithInterruptAfter("b")}, func(cs *calls) graph.NodeFunc[counter] { return cs.track("b") },
			graph.ErrInterrupted, []string{"c"}, []string{"a", "b"}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", tc.bNode(&cs)).AddNode("c", cs.track("c")).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
			c := mustCompile(t, g, append([]graph.CompileOption{graph.WithCheckpointer(memory.New())}, tc.opts...)...)
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			snap := parState(t, c, "t")
			require.Equal(t, tc.next, snap.Next)
			require.Equal(t, tc.trail, snap.Values.Trail)
			var whens []string
			for _, in := range snap.Interrupts {
				whens = append(whens, in.When)
			}
			require.Equal(t, tc.interrupts, whens)
			require.Len(t, snap.Tasks, 1)
			require.Equal(t, tc.next[0], snap.Tasks[0].Node)
			if tc.taskErr != "" {
				require.Contains(t, snap.Tasks[0].Error, tc.taskErr)
			} else {
				require.Empty(t, snap.Tasks[0].Error)
			}
		})
	}
}

// Mirrors LangGraph's "invoke with new input discards the pending tasks"
// (PregelLoop._first: discard_tasks on input): a thread interrupted before
// b, given new input, starts again from START; the old pending b does not
// also run.
func TestParityNewInputDiscardsPendingTasks(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("1")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), state.Writes(lastField.Set("2")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.Equal(t, []string{"a", "a"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "a", "b"}, out.Trail)
	require.Equal(t, 1, cs.get("b"))
}

// ---- update_state, history, replay ----------------------------------------

// Mirrors test_interruption / the "skip a node" recipe: interrupted before
// b, update_state(values, as_node="b") records the update as b's, so
// resuming continues with b's edges (c) and b never runs.
func TestParityUpdateStateAsInterruptedNodeSkipsIt(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	before := parState(t, c, "t")

	cfg, err := c.UpdateState(t.Context(), state.Writes(trailField.Set([]string{"b by hand"})), "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap := parState(t, c, "t")
	require.Equal(t, cfg.CheckpointID, snap.Config.CheckpointID)
	require.Equal(t, []string{"c"}, snap.Next)
	require.Empty(t, snap.Interrupts)
	require.Equal(t, checkpoint.SourceUpdate, snap.Metadata.Source)
	require.Equal(t, 1, snap.Metadata.Step)
	require.Equal(t, []string{"b"}, snap.Metadata.Nodes)
	require.Equal(t, before.Config.CheckpointID, snap.Parent.CheckpointID)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b by hand", "c"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
}

// Mirrors test_update_as_input / test_batch_update_as_input
// (update_state(..., as_node="__start__") on an empty thread, then
// invoke(None)): the update acts as the input and the entry nodes run.
func TestParityUpdateStateAsStartOnEmptyThread(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.UpdateState(t.Context(), state.Writes(lastField.Set("from update")), graph.Start, graph.WithThread("t"))
	require.NoError(t, err)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"a"}, snap.Next)
	require.Equal(t, "from update", snap.Values.Last)
	require.Equal(t, checkpoint.SourceUpdate, snap.Metadata.Source)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.Equal(t, "from update", out.Last)
}

// Mirrors test_checkpoint_forking / get_state_history after a fork:
// history is newest first, each checkpoint's parent is the one its branch
// came from, and the old branch is untouched. Forking at step 0 with
// update_state(as_node="a") makes an update checkpoint at step 1, and the
// resumed branch continues at steps 2 and 3.
func TestParityHistoryAfterFork(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	orig := parHistory(t, c, "t")
	require.Len(t, orig, 4)
	a0 := orig[2]
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("forked")), "a", graph.WithThread("t"), graph.WithCheckpoint(a0.Config.CheckpointID))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.Equal(t, "forked", out.Last)

	hist := parHistory(t, c, "t")
	type row struct {
		src  checkpoint.Source
		step int
	}
	var got []row
	byID := map[string]*graph.Snapshot[counter]{}
	for i, s := range hist {
		got = append(got, row{s.Metadata.Source, s.Metadata.Step})
		byID[s.Config.CheckpointID] = s
		if i > 0 {
			require.Less(t, s.Config.CheckpointID, hist[i-1].Config.CheckpointID, "newest first")
			require.False(t, s.CreatedAt.After(hist[i-1].CreatedAt))
		}
	}
	require.Equal(t, []row{
		{checkpoint.SourceLoop, 3}, {checkpoint.SourceLoop, 2}, {checkpoint.SourceUpdate, 1},
		{checkpoint.SourceLoop, 2}, {checkpoint.SourceLoop, 1}, {checkpoint.SourceLoop, 0}, {checkpoint.SourceInput, -1},
	}, got)
	// Walk the new branch from the head.
	var chain []int
	for s := hist[0]; s != nil; {
		chain = append(chain, s.Metadata.Step)
		if s.Parent == nil {
			break
		}
		s = byID[s.Parent.CheckpointID]
		require.NotNil(t, s, "a parent is missing from history")
	}
	require.Equal(t, []int{3, 2, 1, 0, -1}, chain)
	require.Equal(t, a0.Config.CheckpointID, hist[2].Parent.CheckpointID)
	for i, s := range orig {
		require.Equal(t, s.Config, hist[3+i].Config)
		require.Equal(t, s.Values, hist[3+i].Values)
	}
}

// Mirrors test_invoke_checkpoint_three / time travel (invoke(None,
// {checkpoint_id})): replaying from any checkpoint re-runs only the nodes
// after it, and the result is the same.
func TestParityReplayRerunsOnlyLaterSteps(t *testing.T) {
	t.Parallel()
	nodes := []string{"a", "b", "c", "d"}
	for k := -1; k < len(nodes); k++ {
		t.Run(fmt.Sprintf("from step %d", k), func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema)
			prev := graph.Start
			for _, n := range nodes {
				g.AddNode(n, cs.track(n)).AddEdge(prev, n)
				prev = n
			}
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			var at *graph.Snapshot[counter]
			for _, s := range parHistory(t, c, "t") {
				if s.Metadata.Step == k {
					at = s
				}
			}
			require.NotNil(t, at)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(at.Config.CheckpointID))
			require.NoError(t, err)
			require.Equal(t, nodes, out.Trail)
			for i, n := range nodes {
				want := 1
				if i > k {
					want = 2
				}
				require.Equal(t, want, cs.get(n), "node %s", n)
			}
		})
	}
}

// Mirrors LangGraph's replay of an interrupted checkpoint
// (PregelLoop._first: invoke(None, {checkpoint_id}) is resuming, so
// versions_seen[INTERRUPT] is advanced and the breakpoint is not hit
// again): replaying the checkpoint that stopped before b runs b.
func TestParityReplayOfInterruptedCheckpointRunsPendingTask(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	stopped := parState(t, c, "t")
	require.Equal(t, []string{"b"}, stopped.Next)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithCheckpoint(stopped.Config.CheckpointID))
	require.NoError(t, err, "the replay stopped at the breakpoint again instead of running the pending task")
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.Equal(t, 1, cs.get("a"))
}

// Mirrors the checkpoint metadata assertions of test_pregel.py
// (MemorySaverAssertCheckpointMetadata, "source"/"step" after input, loop,
// update and fork): each checkpoint's source, step and nodes.
func TestParityCheckpointMetadata(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	ctx := t.Context()
	_, err := c.Invoke(ctx, state.Writes(lastField.Set("in")), graph.WithThread("t"), graph.WithMetadata(map[string]any{"who": "ann"}))
	require.NoError(t, err)
	first := parHistory(t, c, "t")
	l0 := first[1]
	_, err = c.UpdateState(ctx, state.Writes(lastField.Set("u1")), "b", graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.UpdateState(ctx, state.Writes(lastField.Set("u2")), "", graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.Invoke(ctx, zero, graph.WithThread("t"), graph.WithCheckpoint(l0.Config.CheckpointID))
	require.NoError(t, err)

	type row struct {
		src   checkpoint.Source
		step  int
		nodes []string
	}
	var got []row
	hist := parHistory(t, c, "t")
	for _, s := range hist {
		got = append(got, row{s.Metadata.Source, s.Metadata.Step, s.Metadata.Nodes})
	}
	require.Equal(t, []row{
		{checkpoint.SourceLoop, 1, []string{"b", "c"}}, // the replayed step
		{checkpoint.SourceFork, 0, nil},                // the replay's fork of l0
		{checkpoint.SourceUpdate, 3, nil},              // the pure edit
		{checkpoint.SourceUpdate, 2, []string{"b"}},    // as node b
		{checkpoint.SourceLoop, 1, []string{"b", "c"}}, // b and c in one step
		{checkpoint.SourceLoop, 0, []string{"a"}},      //
		{checkpoint.SourceInput, -1, nil},              //
	}, got)
	// The first run's checkpoints share its run id and metadata; the replay
	// has a run id of its own.
	run1 := hist[6].Metadata.RunID
	require.NotEmpty(t, run1)
	for _, s := range hist[4:] {
		require.Equal(t, run1, s.Metadata.RunID)
		require.Equal(t, "ann", s.Metadata.Extra["who"])
	}
	require.NotEmpty(t, hist[0].Metadata.RunID)
	require.NotEqual(t, run1, hist[0].Metadata.RunID)
	require.Equal(t, hist[0].Metadata.RunID, hist[1].Metadata.RunID)
	require.Equal(t, l0.Config.CheckpointID, hist[1].Parent.CheckpointID)
}

// ---- subgraphs ----------------------------------------------------------

// Mirrors test_subgraph_checkpoint_true / state isolation of subgraphs:
// the subgraph reads the parent's state as of the start of the step (not a
// sibling's writes of that step), its own checkpoints stay out of the
// parent's history, and its result merges with the sibling's in task order.
func TestParitySubgraphStateIsolation(t *testing.T) {
	t.Parallel()
	var seen []string
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", func(ctx context.Context, s counter) (state.Update[counter], error) {
			seen = slices.Clone(s.Trail)
			return state.Writes(trailField.Set([]string{"x"})), nil
		}).
		AddNode("y", visit("y")).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	g := graph.New(schema).
		AddNode("pre", visit("pre")).AddSubgraph("sub", inner).AddNode("side", visit("side")).AddNode("post", visit("post")).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub").AddEdge("pre", "side").
		AddJoin([]string{"side", "sub"}, "post")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre"}, seen, "the subgraph saw a sibling's write of its own step")
	require.Equal(t, []string{"pre", "side", "x", "y", "post"}, out.Trail)
	hist := parHistory(t, c, "t")
	var nodes [][]string
	for _, s := range hist {
		nodes = append(nodes, s.Metadata.Nodes)
		require.Empty(t, s.Config.Namespace)
	}
	require.Equal(t, [][]string{{"post"}, {"side", "sub"}, {"pre"}, nil}, nodes)
}

// Mirrors test_nested_graph_interrupts / test_subgraph_checkpoint_true
// resume: an interrupt in a subgraph's second node stops the parent (whose
// State shows the subgraph task as next, with the interrupt); resuming
// continues the subgraph from its own checkpoint: the inner node before
// the interrupt and the parent's earlier node do not run again.
func TestParitySubgraphInterruptResumeSkipsFinishedInnerNodes(t *testing.T) {
	t.Parallel()
	var cs calls
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", cs.track("x")).AddNode("ask", askNode(&cs, "ask")).
		AddEdge(graph.Start, "x").AddEdge("x", "ask"))
	g := graph.New(schema).AddNode("pre", cs.track("pre")).AddSubgraph("sub", inner).AddNode("post", cs.track("post")).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub").AddEdge("sub", "post")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"sub"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, "ask?", snap.Interrupts[0].Value)
	require.Equal(t, []string{"pre"}, snap.Values.Trail, "the parent's state is unchanged until the subgraph returns")

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "x", "post"}, out.Trail)
	require.Equal(t, []string{"yes"}, out.Items)
	require.Equal(t, 1, cs.get("pre"))
	require.Equal(t, 1, cs.get("x"))
	require.Equal(t, 2, cs.get("ask"))
	require.Equal(t, 1, cs.get("post"))
}

// ---- streaming ------------------------------------------------------------

// Mirrors test_stream_updates / stream_mode="updates" with parallel nodes
// (including {"node": None} for a node that returns nothing): one event per
// task with its writes, all of a step before any of the next.
func TestParityStreamUpdatesForParallelNodes(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddNode("n", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(7)), nil
		}).
		AddNode("empty", func(ctx context.Context, s counter) (state.Update[counter], error) { return zero, nil }).
		AddNode("last", visit("last")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddEdge(graph.Start, "n").AddEdge(graph.Start, "empty").
		AddJoin([]string{"a", "b", "n", "empty"}, "last")
	type upd struct {
		step   int
		node   string
		fields string
	}
	var got []upd
	for ev, err := range mustCompile(t, g).Stream(t.Context(), zero, graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		require.Equal(t, graph.Updates, ev.Mode)
		f := ""
		for _, w := range ev.Update.Writes {
			f += fmt.Sprintf("%s=%v;", w.Field(), w.Value())
		}
		got = append(got, upd{ev.Step, ev.Node, f})
	}
	require.Len(t, got, 5)
	require.ElementsMatch(t, []upd{
		{0, "a", "trail=[a];"}, {0, "b", "trail=[b];"}, {0, "n", "n=7;"}, {0, "empty", ""},
	}, got[:4])
	require.Equal(t, upd{1, "last", "trail=[last];"}, got[4])
}

// Mirrors LangGraph's output of cached writes on resume
// (PregelLoop._first/_output_writes(cached=True), test_pending_writes_resume
// streaming): a resumed step streams the update of the task that had
// finished before, marked cached, without running it.
func TestParityResumeStreamsCachedUpdates(t *testing.T) {
	t.Parallel()
	var cs calls
	var fail atomic.Bool
	fail.Store(true)
	g := graph.New(schema).
		AddNode("ok", cs.track("ok")).
		AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(trailField.Set([]string{"flaky"})), nil
		}).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "flaky")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	fail.Store(false)
	var updates []string
	cached := map[string]bool{}
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Updates, graph.Tasks)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Updates:
			updates = append(updates, ev.Node)
		case graph.Tasks:
			if ev.Task.Result {
				cached[ev.Node] = ev.Task.Cached
			}
		}
	}
	require.ElementsMatch(t, []string{"ok", "flaky"}, updates)
	require.Equal(t, map[string]bool{"ok": true, "flaky": false}, cached)
	require.Equal(t, 1, cs.get("ok"))
}

// ---- reducers and writes ------------------------------------------------

// Mirrors test_channels.py / test_pregel.py Overwrite tests
// (BinaryOperatorAggregate with Overwrite): an Overwrite replaces the
// field for the step whatever the order of the other writes, two
// Overwrites in one step are an InvalidUpdateError, and Overwrite works
// from the input and from update_state too.
func TestParityOverwriteSemantics(t *testing.T) {
	t.Parallel()
	appendNode := func(v string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{v}), totalField.Set(1)), nil
		}
	}
	overwriteNode := func(v string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Overwrite([]string{v}), totalField.Overwrite(100)), nil
		}
	}
	cases := []struct {
		name    string
		nodes   map[string]graph.NodeFunc[counter]
		items   []string
		total   int
		wantErr bool
	}{
		{"overwrite applied before an append", map[string]graph.NodeFunc[counter]{"a": overwriteNode("o"), "z": appendNode("z")}, []string{"o"}, 100, false},
		{"overwrite applied after an append", map[string]graph.NodeFunc[counter]{"a": appendNode("a"), "z": overwriteNode("o")}, []string{"o"}, 100, false},
		{"overwrite between appends", map[string]graph.NodeFunc[counter]{"a": appendNode("a"), "m": overwriteNode("o"), "z": appendNode("z")}, []string{"o"}, 100, false},
		{"two overwrites", map[string]graph.NodeFunc[counter]{"a": overwriteNode("1"), "z": overwriteNode("2")}, nil, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := graph.New(schema)
			for name, fn := range tc.nodes {
				g.AddNode(name, fn).AddEdge(graph.Start, name)
			}
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			out, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"in"}), totalField.Set(5)), graph.WithThread("t"))
			if tc.wantErr {
				require.ErrorIs(t, err, graph.ErrInvalidUpdate)
				require.ErrorContains(t, err, "overwrites")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.items, out.Items)
			require.Equal(t, tc.total, out.Total)
			// The value survives a round trip through the checkpoint.
			cold := mustCompile(t, g, graph.WithCheckpointer(c.Checkpointer()))
			snap, err := cold.State(t.Context(), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, tc.items, snap.Values.Items)
			require.Equal(t, tc.total, snap.Values.Total)
		})
	}
	t.Run("from input and update_state", func(t *testing.T) {
		t.Parallel()
		g := graph.New(schema).AddNode("a", appendNode("a")).AddEdge(graph.Start, "a")
		c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
		_, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"in"})), graph.WithThread("t"))
		require.NoError(t, err)
		out, err := c.Invoke(t.Context(), state.Writes(itemsField.Overwrite([]string{"fresh"}), totalField.Overwrite(0)), graph.WithThread("t"))
		require.NoError(t, err)
		require.Equal(t, []string{"fresh", "a"}, out.Items)
		require.Equal(t, 1, out.Total)
		_, err = c.UpdateState(t.Context(), state.Writes(itemsField.Overwrite([]string{"edited"})), "", graph.WithThread("t"))
		require.NoError(t, err)
		cold := mustCompile(t, g, graph.WithCheckpointer(c.Checkpointer()))
		snap, err := cold.State(t.Context(), graph.WithThread("t"))
		require.NoError(t, err)
		require.Equal(t, []string{"edited"}, snap.Values.Items)
	})
}

// Mirrors test_invoke_single_process_in_out_falsy_values and
// "a node returning None": zero values (0, "", empty list) are real
// writes that replace a value and survive a checkpoint round trip; an
// empty update changes nothing but the step still happens and its edges
// are followed.
func TestParityZeroValueAndEmptyWrites(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		write func() state.Update[counter]
		check func(t *testing.T, s counter)
	}{
		{"zero int", func() state.Update[counter] { return state.Writes(nField.Set(0)) }, func(t *testing.T, s counter) { require.Equal(t, 0, s.N) }},
		{"empty string", func() state.Update[counter] { return state.Writes(lastField.Set("")) }, func(t *testing.T, s counter) { require.Equal(t, "", s.Last) }},
		{"overwrite with an empty list", func() state.Update[counter] { return state.Writes(itemsField.Overwrite([]string{})) }, func(t *testing.T, s counter) { require.Empty(t, s.Items) }},
		{"overwrite with nil", func() state.Update[counter] { return state.Writes(itemsField.Overwrite(nil)) }, func(t *testing.T, s counter) { require.Empty(t, s.Items) }},
		{"sum overwritten with zero", func() state.Update[counter] { return state.Writes(totalField.Overwrite(0)) }, func(t *testing.T, s counter) { require.Equal(t, 0, s.Total) }},
		{"append of nothing", func() state.Update[counter] { return state.Writes(itemsField.Set(nil)) }, func(t *testing.T, s counter) { require.Equal(t, []string{"i"}, s.Items) }},
		{"empty update", func() state.Update[counter] { return zero }, func(t *testing.T, s counter) {
			require.Equal(t, counter{N: 5, Last: "x", Items: []string{"i"}, Total: 3, Trail: []string{"after"}}, s)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := graph.New(schema).
				AddNode("w", func(ctx context.Context, s counter) (state.Update[counter], error) { return tc.write(), nil }).
				AddNode("after", visit("after")).
				AddEdge(graph.Start, "w").AddEdge("w", "after")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			out, err := c.Invoke(t.Context(), state.Writes(nField.Set(5), lastField.Set("x"), itemsField.Set([]string{"i"}), totalField.Set(3)), graph.WithThread("t"))
			require.NoError(t, err)
			tc.check(t, out)
			require.Equal(t, []string{"after"}, out.Trail, "the node's edges were followed")
			cold := mustCompile(t, g, graph.WithCheckpointer(c.Checkpointer()))
			snap, err := cold.State(t.Context(), graph.WithThread("t"))
			require.NoError(t, err)
			tc.check(t, snap.Values)
			hist := parHistory(t, cold, "t")
			require.Len(t, hist, 3)
			require.Equal(t, []string{"w"}, hist[1].Metadata.Nodes)
		})
	}
}

// Mirrors update_state(config, None, as_node=...) in test_pregel.py: an
// empty update as a node still records the node and follows its edges.
func TestParityEmptyUpdateStateAsNode(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).AddNode("a", cs.track("a")).AddNode("b", cs.track("b")).AddNode("c", cs.track("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b"))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	before := parState(t, c, "t")
	_, err = c.UpdateState(t.Context(), zero, "b", graph.WithThread("t"))
	require.NoError(t, err)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"c"}, snap.Next)
	require.Equal(t, before.Values, snap.Values)
	require.Equal(t, []string{"b"}, snap.Metadata.Nodes)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, out.Trail)
	require.Equal(t, 0, cs.get("b"))
}

// ---- more interrupts, sends and history -----------------------------------

// Mirrors test_send_react_interrupt / test_send_dedupe_on_resume: one of
// several Send tasks interrupts; the Sends that finished keep their writes
// and are not run again; the resumed Send runs with its own argument.
func TestParityInterruptInOneSendTask(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("split", cs.track("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("work:" + s.Last)
			if s.Last == "ask" {
				v, err := graph.Interrupt[string](ctx, "answer for "+s.Last)
				if err != nil {
					return state.Update[counter]{}, err
				}
				return state.Writes(itemsField.Set([]string{s.Last + "=" + v})), nil
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "p"}), graph.SendTo("work", counter{Last: "ask"}), graph.SendTo("work", counter{Last: "q"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "answer for ask", ie.Interrupts[0].Value)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"work"}, snap.Next)
	require.Equal(t, []string{"p", "q"}, snap.Values.Items)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("42"))
	require.NoError(t, err)
	require.Equal(t, []string{"p", "ask=42", "q"}, out.Items, "writes apply in Send order")
	require.Equal(t, 1, cs.get("work:p"))
	require.Equal(t, 1, cs.get("work:q"))
	require.Equal(t, 2, cs.get("work:ask"))
	require.Equal(t, 1, cs.get("split"))
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted with a
// subgraph as the interrupting task (test_subgraph_checkpoint_true,
// parallel branch): the sibling that finished is not run again when the
// subgraph is resumed.
func TestParitySubgraphInterruptWithParallelSibling(t *testing.T) {
	t.Parallel()
	var cs calls
	inner := mustCompile(t, graph.New(schema).AddNode("ask", askNode(&cs, "ask")).AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddSubgraph("sub", inner).AddNode("side", cs.track("side")).
		AddEdge(graph.Start, "sub").AddEdge(graph.Start, "side")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap := parState(t, c, "t")
	require.Equal(t, []string{"sub"}, snap.Next)
	require.Equal(t, []string{"side"}, snap.Values.Trail)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("ok"))
	require.NoError(t, err)
	require.Equal(t, []string{"side"}, out.Trail)
	require.Equal(t, []string{"ok"}, out.Items)
	require.Equal(t, 1, cs.get("side"))
	require.Equal(t, 2, cs.get("ask"))
}

// Mirrors LangGraph's get_state(config with checkpoint_id)
// (_prepare_state_snapshot applies pending writes only for the latest
// checkpoint): pinned to the checkpoint of a failed step, the state is as
// saved and both tasks are listed as next.
func TestParityPinnedStateDoesNotApplyPendingWrites(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("ok", visit("ok")).
		AddNode("bad", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, errors.New("bad")
		}).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	latest := parState(t, c, "t")
	require.Equal(t, []string{"ok"}, latest.Values.Trail)
	require.Equal(t, []string{"bad"}, latest.Next)
	pinned, err := c.State(t.Context(), graph.WithThread("t"), graph.WithCheckpoint(latest.Config.CheckpointID))
	require.NoError(t, err)
	require.Empty(t, pinned.Values.Trail)
	require.Equal(t, []string{"bad", "ok"}, pinned.Next)
	require.Len(t, pinned.Tasks, 2)
}

// Mirrors the checkpointer list tests (test_checkpoint*.py: list with
// filter, before and limit) through get_state_history.
func TestParityHistoryFilters(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithMetadata(map[string]any{"user": "ann", "try": 1}))
	require.NoError(t, err)
	_, err = c.UpdateState(t.Context(), state.Writes(lastField.Set("x")), "", graph.WithThread("t"))
	require.NoError(t, err)
	all := parHistory(t, c, "t")
	require.Len(t, all, 5)
	steps := func(opts ...graph.HistoryOption) []int {
		var out []int
		for s, err := range c.History(t.Context(), append([]graph.HistoryOption{graph.WithThread("t")}, opts...)...) {
			require.NoError(t, err)
			out = append(out, s.Metadata.Step)
		}
		return out
	}
	cases := []struct {
		name string
		opts []graph.HistoryOption
		want []int
	}{
		{"source loop", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": "loop"})}, []int{2, 1, 0}},
		{"source update", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": checkpoint.SourceUpdate})}, []int{3}},
		{"step", []graph.HistoryOption{graph.WithFilter(map[string]any{"step": 1})}, []int{1}},
		{"user metadata", []graph.HistoryOption{graph.WithFilter(map[string]any{"user": "ann", "try": 1})}, []int{2, 1, 0, -1}},
		{"no match", []graph.HistoryOption{graph.WithFilter(map[string]any{"user": "bob"})}, nil},
		{"limit", []graph.HistoryOption{graph.WithLimit(2)}, []int{3, 2}},
		{"before", []graph.HistoryOption{graph.WithBefore(all[1].Config.CheckpointID)}, []int{1, 0, -1}},
		{"before and limit", []graph.HistoryOption{graph.WithBefore(all[1].Config.CheckpointID), graph.WithLimit(1)}, []int{1}},
		{"filter and limit", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": "loop"}), graph.WithLimit(2)}, []int{2, 1}},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, steps(tc.opts...), tc.name)
	}
}

// Mirrors Command(goto=[Send(...)]) (test_command_with_send /
// test_send_sequences): Sends returned in a node's update run in the next
// step beside its static edges and router Sends, each with its argument.
func TestParityUpdateSendsWithEdges(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{
				Writes: []state.Write[counter]{trailField.Set([]string{"a"})},
				Sends:  []graph.Send[counter]{graph.SendTo("w", counter{Last: "cmd1"}), graph.SendTo("w", counter{Last: "cmd2"})},
			}, nil
		}, graph.WithDestinations("w")).
		AddNode("w", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("w")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").
		AddConditionalEdges("a", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("w", counter{Last: "router"})}, nil
		}), "w")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 3, cs.get("w"))
	require.Equal(t, 1, cs.get("b"))
	require.ElementsMatch(t, []string{"router", "cmd1", "cmd2"}, out.Items)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	hist := parHistory(t, c, "t")
	require.Equal(t, []string{"b", "w"}, hist[0].Metadata.Nodes)
}
