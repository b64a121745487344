package graph_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

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

func TestRecursionLimitLeavesThreadResumable(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("inc", func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "inc").
		AddConditionalEdges("inc", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < 10 {
				return "inc", nil
			}
			return graph.End, nil
		}), "inc", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.WithRecursionLimit(4))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	require.Equal(t, 4, out.N)
	out, err = c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 10, out.N)
}

// Mirrors test_recursion_limit / GraphRecursionError: the limit bounds the
// supersteps of one call (LangGraph: stop = step + recursion_limit), so a
// resumed call gets a fresh budget, and a run needing exactly the limit
// succeeds.
func TestRecursionLimitIsPerCall(t *testing.T) {
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

// Mirrors test_send_sequences / recursion limit with Send: each step of
// Sends counts once toward the limit however many Sends it runs, the error
// names the pending node, and the thread resumes with a higher limit.
func TestRecursionLimitCountsAStepOfSendsOnce(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	g := graph.New(schema).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			runs.Add(1)
			upd := state.Writes(itemsField.Set([]string{fmt.Sprintf("%d/%s", s.N, s.Last)}))
			if s.N < 4 && s.Last == "l" {
				// each generation: two Sends, one of which continues
				upd.Sends = []graph.Send[counter]{graph.SendTo("work", counter{N: s.N + 1, Last: "l"}), graph.SendTo("work", counter{N: s.N + 1, Last: "r"})}
			}
			return upd, nil
		}, graph.WithDestinations("work")).
		AddConditionalEdges(graph.Start, graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{N: 0, Last: "l"}), graph.SendTo("work", counter{N: 0, Last: "r"})}, nil
		}), "work")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithRecursionLimit(3))
	require.ErrorIs(t, err, graph.ErrRecursionLimit)
	require.ErrorContains(t, err, "work")
	require.EqualValues(t, 6, runs.Load(), "three steps of two Sends each")
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"work", "work"}, snap.Next)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithRecursionLimit(10))
	require.NoError(t, err)
	require.EqualValues(t, 10, runs.Load())
	require.Equal(t, []string{"0/l", "0/r", "1/l", "1/r", "2/l", "2/r", "3/l", "3/r", "4/l", "4/r"}, out.Items)
}

func TestDefaultRecursionLimitIsTheGraphsUnlessTheCallSays(t *testing.T) {
	t.Parallel()
	g := graph.New(schema)
	prev := graph.Start
	for i := range 30 {
		name := fmt.Sprint("n", i)
		g.AddNode(name, visit(name)).AddEdge(prev, name)
		prev = name
	}
	tests := []struct {
		name    string
		compile []graph.CompileOption
		call    []graph.RunOption
		wantErr bool
	}{
		{name: "package default stops a 30-step chain", wantErr: true},
		{name: "graph default lets it finish", compile: []graph.CompileOption{graph.WithDefaultRecursionLimit(30)}},
		{name: "graph default too low", compile: []graph.CompileOption{graph.WithDefaultRecursionLimit(29)}, wantErr: true},
		{name: "the call overrides the graph", compile: []graph.CompileOption{graph.WithDefaultRecursionLimit(30)}, call: []graph.RunOption{graph.WithRecursionLimit(10)}, wantErr: true},
		{name: "the call raises the package default", call: []graph.RunOption{graph.WithRecursionLimit(30)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := mustCompile(t, g, tt.compile...)
			_, err := c.Invoke(t.Context(), state.Update[counter]{}, tt.call...)
			if tt.wantErr {
				require.ErrorIs(t, err, graph.ErrRecursionLimit)
				return
			}
			require.NoError(t, err)
		})
	}
}
