package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

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

// Mirrors LangGraph's Command(goto=...) semantics (test_command_goto_*,
// "goto is in addition to static edges"): a node's goto and its static
// edges are both followed; goto END adds nothing and does not cut the
// static edges.
func TestGotoIsFollowedBesideStaticEdges(t *testing.T) {
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

// WithDestinations' documentation allows a Goto to "a target of the node's
// edges": a conditional edge's declared targets are such targets.
func TestGotoToAConditionalEdgeTargetIsAllowed(t *testing.T) {
	t.Parallel()
	router := func(ctx context.Context, s counter) (graph.Route[counter], error) {
		return graph.Route[counter]{To: []string{graph.End}}, nil
	}
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Goto: []string{"b"}}, nil
		}, graph.WithDestinations("c")).
		AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", router, "b", graph.End)
	c := mustCompile(t, g)
	out, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)))
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, out.Trail)
}

// A node that declares its destinations may goto or send only to them, to
// the targets of its edges, or to End; anything else fails the step like a
// router's undeclared target. Without a declaration any node is allowed.
func TestGotoAndSendsStayWithinDeclaredDestinations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		declared []string
		upd      state.Update[counter]
		wantErr  string
	}{
		{"declared goto", []string{"c"}, state.Update[counter]{Goto: []string{"c"}}, ""},
		{"goto an edge target", []string{"c"}, state.Update[counter]{Goto: []string{"b"}}, ""},
		{"goto End", []string{"c"}, state.Update[counter]{Goto: []string{graph.End}}, ""},
		{"undeclared goto", []string{"c"}, state.Update[counter]{Goto: []string{"d"}}, `goto "d", which is not among the node's declared destinations`},
		{"undeclared send", []string{"c"}, state.Update[counter]{Sends: []graph.Send[counter]{graph.SendTo("d", counter{})}}, `send to "d", which is not among`},
		{"nothing declared", nil, state.Update[counter]{Goto: []string{"d"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var opts []graph.NodeOption
			if c.declared != nil {
				opts = append(opts, graph.WithDestinations(c.declared...))
			}
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) { return c.upd, nil }, opts...).
				AddNode("b", visit("b")).AddNode("c", visit("c")).AddNode("d", visit("d")).
				AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge(graph.Start, "c").AddEdge(graph.Start, "d")
			_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
			if c.wantErr == "" {
				require.NoError(t, err)
				return
			}
			var re *graph.RouteError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "a", re.Node)
			require.ErrorIs(t, err, graph.ErrInvalidRoute)
			require.ErrorContains(t, err, c.wantErr)
		})
	}
}

// fooState is LangGraph's test state with foo: Annotated[str, operator.add].
type fooState struct{ Foo string }

var (
	fooField  = state.Reduce("foo", func(s *fooState) *string { return &s.Foo }, func(old, upd string) string { return old + upd })
	fooSchema = state.NewSchema(fooField)
)

// appendFoo is a node that adds text to foo.
func appendFoo(text string) graph.NodeFunc[fooState] {
	return func(ctx context.Context, s fooState) (state.Update[fooState], error) {
		return state.Writes(fooField.Set(text)), nil
	}
}

// Mirrors test_pregel.py's test_command_goto_with_static_breakpoints: a
// goto given as the input of a thread stopped at a static breakpoint is a
// Command: it resumes the thread, the stopped node runs past its
// breakpoint, and the goto's node runs beside it in the same step (and
// again after it, by the static edge): "abc|node-1|node-2|node-2". With
// resume values the same.
func TestGotoInputAtAStaticBreakpointResumesBesideThePendingNode(t *testing.T) {
	t.Parallel()
	for _, withResume := range []bool{false, true} {
		t.Run(map[bool]string{false: "goto", true: "goto and resume"}[withResume], func(t *testing.T) {
			t.Parallel()
			g := graph.New(fooSchema).
				AddNode("node1", appendFoo("|node-1")).AddNode("node2", appendFoo("|node-2")).
				AddEdge(graph.Start, "node1").AddEdge("node1", "node2")
			c, err := g.Compile(graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("node1"))
			require.NoError(t, err)
			ctx := t.Context()
			out, err := c.Invoke(ctx, state.Writes(fooField.Set("abc")), graph.WithThread("t"))
			var ie *graph.InterruptError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, "abc", out.Foo)

			opts := []graph.RunOption{graph.WithThread("t")}
			if withResume {
				opts = append(opts, graph.Resume(true))
			}
			out, err = c.Invoke(ctx, state.Update[fooState]{Goto: []string{"node2"}}, opts...)
			require.NoError(t, err)
			require.Equal(t, "abc|node-1|node-2|node-2", out.Foo)
		})
	}
}
