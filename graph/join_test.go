package graph_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

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

// Mirrors test_conditional_entrypoint_to_multiple_state_graph and
// test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge: a
// conditional edge returns several nodes at once; they run in the same
// step, and a join (add_edge([x, y], z)) after them runs once.
func TestJoinAfterConditionalFanOutRunsOnce(t *testing.T) {
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
	hist := history(t, c, "t")
	require.Len(t, hist, 5)
	require.Equal(t, []string{"x", "y"}, hist[1].Metadata.Nodes, "x and y ran in the same step")
}

// Mirrors LangGraph's waiting edges (NamedBarrierValue channel;
// test_in_one_fan_out_state_graph_waiting_edge,
// test_state_graph_w_config_inherited_state_keys loops): a join fires once
// per round when every source ran, re-arms for the next round of a loop,
// and never fires when a source did not run.
func TestJoinRearmsAndWaitsForEverySource(t *testing.T) {
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
