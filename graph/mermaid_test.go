package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

var toEnd = graph.Choose(func(ctx context.Context, s counter) (string, error) { return graph.End, nil })

func TestMermaidGolden(t *testing.T) {
	t.Parallel()
	planExecute := graph.New(schema).
		AddNode("planner", visit("planner")).AddNode("agent", visit("agent")).AddNode("replan", visit("replan")).
		AddEdge(graph.Start, "planner").AddEdge("planner", "agent").AddEdge("agent", "replan").
		AddConditionalEdges("replan", toEnd, "agent", graph.End)
	join := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("j", visit("j")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddJoin([]string{"a", "b"}, "j").AddEdge("j", graph.End)
	labels := graph.New(schema).
		AddNode("check", visit("check")).AddNode("fix", visit("fix")).
		AddEdge(graph.Start, "check").AddEdge("fix", "check").
		AddConditionalEdgesMap("check", toEnd, map[string]string{"broken": "fix", "ok": graph.End, "fix": "fix"})
	inner := mustCompile(t, graph.New(schema).AddNode("x", visit("x")).AddNode("y", visit("y")).
		AddEdge(graph.Start, "x").AddEdge("x", "y").AddEdge("y", graph.End))
	withSub := graph.New(schema).AddNode("prep", visit("prep")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "prep").AddEdge("prep", "sub").AddEdge("sub", graph.End)

	cases := []struct {
		name string
		g    *graph.StateGraph[counter]
		opts []graph.MermaidOption
		want string
	}{
		{"plan and execute loop", planExecute, nil, "graph TD;\n" +
			"\t__start__ --> planner;\n" +
			"\tagent --> replan;\n" +
			"\tplanner --> agent;\n" +
			"\treplan -.-> __end__;\n" +
			"\treplan -.-> agent;\n"},
		{"join", join, nil, "graph TD;\n" +
			"\t__start__ --> a;\n" +
			"\t__start__ --> b;\n" +
			"\ta --> j;\n" +
			"\tb --> j;\n" +
			"\tj --> __end__;\n"},
		{"conditional with labels", labels, nil, "graph TD;\n" +
			"\t__start__ --> check;\n" +
			"\tcheck -. &nbsp;ok&nbsp; .-> __end__;\n" +
			"\tcheck -.-> fix;\n" +
			"\tcheck -. &nbsp;broken&nbsp; .-> fix;\n" +
			"\tfix --> check;\n"},
		// A subgraph's nodes read as their names without options.
		{"subgraph", withSub, nil, "graph TD;\n" +
			"\tsubgraph sub\n" +
			"\t\tsub\\3a__start__(__start__)\n" +
			"\t\tsub\\3ax(x)\n" +
			"\t\tsub\\3ay(y)\n" +
			"\t\tsub\\3a__end__(__end__)\n" +
			"\t\tsub\\3a__start__ --> sub\\3ax;\n" +
			"\t\tsub\\3ax --> sub\\3ay;\n" +
			"\t\tsub\\3ay --> sub\\3a__end__;\n" +
			"\tend\n" +
			"\t__start__ --> prep;\n" +
			"\tprep --> sub;\n" +
			"\tsub --> __end__;\n"},
		{"styled with front matter", planExecute, []graph.MermaidOption{graph.MermaidStyles(), graph.MermaidFrontMatter(""), graph.MermaidNodeStyle("agent", "fill:#fde68a")}, "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n" +
			"\t__start__([<p>__start__</p>]):::first\n" +
			"\tplanner(planner)\n" +
			"\tagent(agent)\n" +
			"\treplan(replan)\n" +
			"\t__end__([<p>__end__</p>]):::last\n" +
			"\t__start__ --> planner;\n" +
			"\tagent --> replan;\n" +
			"\tplanner --> agent;\n" +
			"\treplan -.-> __end__;\n" +
			"\treplan -.-> agent;\n" +
			"\tstyle agent fill:#fde68a\n" +
			"\tclassDef default fill:#f2f0ff,line-height:1.2\n" +
			"\tclassDef first fill-opacity:0\n" +
			"\tclassDef last fill:#bfb6fc\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, mustCompile(t, c.g).Mermaid(c.opts...))
		})
	}
}

func TestMermaidPathFollowsTheThread(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("planner", visit("planner")).AddNode("agent", visit("agent")).AddNode("replan", visit("replan")).
		AddEdge(graph.Start, "planner").AddEdge("planner", "agent").AddEdge("agent", "replan").
		AddConditionalEdges("replan", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if len(s.Trail) < 5 {
				return "agent", nil
			}
			return graph.End, nil
		}), "agent", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("replan"))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	path, err := c.MermaidPath(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "graph TD;\n"+
		"\t__start__([<p>__start__</p>]):::first\n"+
		"\ts1_planner[\"planner · step 1\"]\n"+
		"\ts2_agent[\"agent · step 2\"]\n"+
		"\ts3_replan[\"replan · step 3 (pending)\"]:::pending\n"+
		"\t__start__ --> s1_planner;\n"+
		"\ts1_planner --> s2_agent;\n"+
		"\ts2_agent -.-> s3_replan;\n"+
		"\tclassDef first fill-opacity:0\n"+
		"\tclassDef last fill:#bfb6fc\n"+
		"\tclassDef pending stroke-dasharray:5 5\n", path)
	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted) // before replan at step 5
	_, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	path, err = c.MermaidPath(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Contains(t, path, "\ts5_replan --> __end__;\n")
	require.Contains(t, path, "\ts4_agent --> s5_replan;\n")
}
