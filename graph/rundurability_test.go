package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A call's WithRunDurability replaces the graph's durability for that
// call only: exit stores the final checkpoint alone, the next call with
// the graph's sync stores every step again.
func TestRunDurabilityOverridesTheGraphsForOneCall(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	saver := memory.New()
	c, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	ctx := t.Context()
	count := func(thread string) int {
		n := 0
		for _, err := range c.History(ctx, graph.WithThread(thread)) {
			require.NoError(t, err)
			n++
		}
		return n
	}
	_, err = c.Invoke(ctx, state.Writes(trailField.Set([]string{"in"})), graph.WithThread("exit"), graph.WithRunDurability(graph.DurabilityExit))
	require.NoError(t, err)
	require.Equal(t, 1, count("exit"), "exit stores only the final checkpoint")
	_, err = c.Invoke(ctx, state.Writes(trailField.Set([]string{"in"})), graph.WithThread("sync"))
	require.NoError(t, err)
	require.Equal(t, 4, count("sync"), "input, loop, a, b")
}
