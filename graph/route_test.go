package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

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

// Mirrors test_conditional_edge errors (a path function that raises, or
// returns a node that does not exist): the run fails with a *RouteError
// naming the node and step, the failed step is not stored, and a resume
// (with the router fixed) completes without applying the step twice.
func TestFailedRouterLeavesTheStepUnstoredAndResumable(t *testing.T) {
	t.Parallel()
	errRoute := errors.New("cannot decide")
	cases := []struct {
		name     string
		router   func(broken bool) (graph.Route[counter], error)
		wantErr  error
		wantText string
	}{
		{"router returns an error", func(broken bool) (graph.Route[counter], error) {
			if broken {
				return graph.Route[counter]{}, errRoute
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, errRoute, "cannot decide"},
		{"router panics", func(broken bool) (graph.Route[counter], error) {
			if broken {
				panic("kaboom")
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, nil, "router panicked: kaboom"},
		{"router returns an undeclared target", func(broken bool) (graph.Route[counter], error) {
			if broken {
				return graph.Route[counter]{To: []string{"nowhere"}}, nil
			}
			return graph.Route[counter]{To: []string{"b"}}, nil
		}, graph.ErrInvalidRoute, `"nowhere"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var broken atomic.Bool
			broken.Store(true)
			var cs calls
			g := graph.New(schema).
				AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
					cs.inc("a")
					return state.Writes(totalField.Set(1), trailField.Set([]string{"a"})), nil
				}).
				AddNode("b", cs.track("b")).
				AddEdge(graph.Start, "a").
				AddConditionalEdges("a", func(ctx context.Context, s counter) (graph.Route[counter], error) {
					return tc.router(broken.Load())
				}, "b", graph.End)
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			var re *graph.RouteError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "a", re.Node)
			require.Equal(t, 1, re.Step)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.ErrorContains(t, err, tc.wantText)
			snap := latestState(t, c, "t")
			require.Equal(t, 0, snap.Metadata.Step, "the failed step is not stored")
			require.Equal(t, []string{"a"}, snap.Next)

			broken.Store(false)
			out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"a", "b"}, out.Trail)
			require.Equal(t, 1, out.Total)
		})
	}
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

// Mirrors LangGraph branches returning a list containing END
// (test_conditional_graph, "END in a multi-destination route"): END is
// ignored, the other destinations run.
func TestRouteToEndAndANodeRunsTheNode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").
		AddConditionalEdges("a", routeTo(graph.End, "b"), "b", graph.End)
	out, err := mustCompile(t, g).Invoke(t.Context(), zero)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
}
