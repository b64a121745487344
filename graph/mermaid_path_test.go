package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// forkJoin fans out from fan to side and to three Sends of work; side
// goes on to side2, and merge joins work and side2, which finish in
// different steps.
func forkJoin() *graph.StateGraph[counter] {
	return graph.New(schema).
		AddNode("fan", visit("fan")).AddNode("side", visit("side")).AddNode("side2", visit("side2")).
		AddNode("work", visit("work")).AddNode("merge", visit("merge")).
		AddEdge(graph.Start, "fan").
		AddConditionalEdges("fan", func(ctx context.Context, s counter) (graph.Route[counter], error) {
			return graph.Route[counter]{To: []string{"side"}, Sends: []graph.Send[counter]{
				graph.SendTo("work", counter{}), graph.SendTo("work", counter{}), graph.SendTo("work", counter{})}}, nil
		}, "side", "work").
		AddEdge("side", "side2").
		AddJoin([]string{"work", "side2"}, "merge").
		AddEdge("merge", graph.End)
}

func TestMermaidPathDrawsEachSendAndTheTasksThatScheduledIt(t *testing.T) {
	t.Parallel()
	c := mustCompile(t, forkJoin(), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	path, err := c.MermaidPath(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "graph TD;\n"+
		"\t__start__([<p>__start__</p>]):::first\n"+
		"\ts1_fan[\"fan · step 1\"]\n"+
		"\ts2_side[\"side · step 2\"]\n"+
		"\ts2_work[\"work · step 2\"]\n"+
		"\ts2_work\\7c2[\"work #2 · step 2\"]\n"+
		"\ts2_work\\7c3[\"work #3 · step 2\"]\n"+
		"\ts3_side2[\"side2 · step 3\"]\n"+
		"\ts4_merge[\"merge · step 4\"]\n"+
		"\t__end__([<p>__end__</p>]):::last\n"+
		"\t__start__ --> s1_fan;\n"+
		// The fork: fan scheduled all four.
		"\ts1_fan --> s2_side;\n"+
		"\ts1_fan --> s2_work;\n"+
		"\ts1_fan --> s2_work\\7c2;\n"+
		"\ts1_fan --> s2_work\\7c3;\n"+
		// Only side scheduled side2.
		"\ts2_side --> s3_side2;\n"+
		// The join: from side2 and from the three works a step earlier.
		"\ts3_side2 --> s4_merge;\n"+
		"\ts2_work --> s4_merge;\n"+
		"\ts2_work\\7c2 --> s4_merge;\n"+
		"\ts2_work\\7c3 --> s4_merge;\n"+
		"\ts4_merge --> __end__;\n"+
		"\tclassDef first fill-opacity:0\n"+
		"\tclassDef last fill:#bfb6fc\n"+
		"\tclassDef pending stroke-dasharray:5 5\n", path)

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	var steps [][]string
	for s, err := range c.History(t.Context(), graph.WithThread("t")) {
		require.NoError(t, err)
		steps = append([][]string{s.Metadata.Nodes}, steps...)
	}
	require.Equal(t, [][]string{nil, nil, {"fan"}, {"side", "work", "work", "work"}, {"side2"}, {"merge"}}, steps,
		"each task is in its checkpoint's nodes, Sends repeated")
	require.Empty(t, snap.Next)
}

func TestMermaidPathDrawsPendingTasksFromTheirTriggers(t *testing.T) {
	t.Parallel()
	c := mustCompile(t, forkJoin(), graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("side2"))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	path, err := c.MermaidPath(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Contains(t, path, "\ts3_side2[\"side2 · step 3 (pending)\"]:::pending\n")
	require.Contains(t, path, "\ts2_side -.-> s3_side2;\n")
	require.NotContains(t, path, "\ts2_work -.-> s3_side2;\n", "work did not schedule side2")
}

func TestMermaidPathOfSendsFanOutAndJoinInOneStep(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("fan", visit("fan")).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddNode("c", visit("c")).AddNode("d", visit("d")).
		AddEdge(graph.Start, "fan").AddEdge("fan", "a").AddEdge("fan", "b").
		AddEdge("a", "c").AddEdge("b", "d").
		AddJoin([]string{"c", "d"}, "a2").AddNode("a2", visit("a2"))
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	path, err := c.MermaidPath(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Contains(t, path, "\ts2_a --> s3_c;\n\ts2_b --> s3_d;\n\ts3_c --> s4_a2;\n\ts3_d --> s4_a2;\n")
	require.NotContains(t, path, "s2_a --> s3_d")
	require.NotContains(t, path, "s2_b --> s3_c")
}
