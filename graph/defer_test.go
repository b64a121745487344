package graph_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// adding records, as LangGraph's defer example prints, what each node saw
// of the trail when it ran: `Adding "B_2" to [A B C]`.
type adding struct {
	mu  sync.Mutex
	log []string
}

func (a *adding) node(name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		a.mu.Lock()
		a.log = append(a.log, fmt.Sprintf("Adding %q to %v", name, s.Trail))
		a.mu.Unlock()
		return state.Writes(trailField.Set([]string{name})), nil
	}
}

// lines returns the log.
func (a *adding) lines() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.log...)
}

// unevenBranches is the graph of LangGraph's "defer node execution" guide:
// START → a → (b → b_2 ‖ c) → d, with plain edges into d.
func unevenBranches(a *adding, deferD bool) *graph.StateGraph[counter] {
	var opts []graph.NodeOption
	if deferD {
		opts = append(opts, graph.WithDefer())
	}
	return graph.New(schema).
		AddNode("a", a.node("A")).
		AddNode("b", a.node("B")).
		AddNode("b_2", a.node("B_2")).
		AddNode("c", a.node("C")).
		AddNode("d", a.node("D"), opts...).
		AddEdge(graph.Start, "a").
		AddEdge("a", "b").AddEdge("a", "c").
		AddEdge("b", "b_2").
		AddEdge("b_2", "d").AddEdge("c", "d").
		AddEdge("d", graph.End)
}

// Mirrors LangGraph's guide "How to defer node execution" (add_node(d,
// defer=True)): d, reached by branches of one and two steps, runs once,
// after the longer branch, and sees every branch's writes; without defer
// it runs twice, the first time beside b_2 (the guide's expected output of
// both graphs).
func TestDeferredNodeWaitsForTheLongerBranch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		deferD bool
		want   []string
		trail  []string
	}{
		{
			name: "defer", deferD: true,
			want: []string{
				`Adding "A" to []`,
				`Adding "B" to [A]`,
				`Adding "C" to [A]`,
				`Adding "B_2" to [A B C]`,
				`Adding "D" to [A B C B_2]`,
			},
			trail: []string{"A", "B", "C", "B_2", "D"},
		},
		{
			name: "no defer",
			want: []string{
				`Adding "A" to []`,
				`Adding "B" to [A]`,
				`Adding "C" to [A]`,
				`Adding "B_2" to [A B C]`,
				`Adding "D" to [A B C]`,
				`Adding "D" to [A B C B_2 D]`,
			},
			trail: []string{"A", "B", "C", "B_2", "D", "D"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a adding
			c := mustCompile(t, unevenBranches(&a, tc.deferD))
			out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithMaxConcurrency(1))
			require.NoError(t, err)
			require.Equal(t, tc.trail, out.Trail)
			require.Equal(t, tc.want, a.lines())
		})
	}
}

// A deferred node waits in the checkpoints as LangGraph's does: the
// step that holds it back does not list it in Next nor among its tasks,
// a stop before b_2 keeps it waiting, and the resume runs it once, last.
// The history's steps are those of the run without a stop.
func TestDeferredNodeWaitsAcrossAnInterruptAndIsNotInNext(t *testing.T) {
	t.Parallel()
	var a adding
	c := mustCompile(t, unevenBranches(&a, true), graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b_2"))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"b_2"}, snap.Next, "d waits: it is not next while b_2 is pending")
	require.Len(t, snap.Tasks, 1)

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"A", "B", "C", "B_2", "D"}, out.Trail)
	require.Equal(t, `Adding "D" to [A B C B_2]`, a.lines()[len(a.lines())-1])

	var steps []string
	for _, s := range history(t, c, "t") {
		steps = append(steps, fmt.Sprintf("%d:%s", s.Metadata.Step, strings.Join(s.Next, ",")))
	}
	// newest first: -1 input, 0 a, 1 b+c, 2 b_2 (d held), 3 d, 4 done
	require.Equal(t, []string{"4:", "3:d", "2:b_2", "1:b,c", "0:a", "-1:__start__"}, steps)
}

// Map-reduce over branches of uneven length: each Send runs a mapper that
// goes round a loop as many times as its item says; the reducer, reached
// by an edge from every round, is deferred, so it runs once, when every
// mapper has finished, and sees every item.
func TestDeferredReducerRunsOnceAfterUnevenSends(t *testing.T) {
	t.Parallel()
	var reduced []string
	g := graph.New(schema).
		AddNode("split", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, nil
		}).
		AddNode("mapper", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if s.N > 1 {
				// not done: go round again with one less
				return state.Update[counter]{Sends: []graph.Send[counter]{graph.SendTo("mapper", counter{N: s.N - 1, Last: s.Last})}}, nil
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}, graph.WithDestinations("mapper")).
		AddNode("reduce", func(ctx context.Context, s counter) (state.Update[counter], error) {
			reduced = append(reduced, strings.Join(s.Items, ","))
			return state.Writes(lastField.Set("reduced")), nil
		}, graph.WithDefer()).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{
				graph.SendTo("mapper", counter{N: 1, Last: "x"}),
				graph.SendTo("mapper", counter{N: 3, Last: "y"}),
				graph.SendTo("mapper", counter{N: 2, Last: "z"}),
			}, nil
		}), "mapper").
		AddEdge("mapper", "reduce")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"x", "z", "y"}, out.Items)
	require.Equal(t, []string{"x,z,y"}, reduced, "the reducer ran once, after the longest mapper")
	require.Equal(t, "reduced", out.Last)
}

// UpdateState as a node keeps a waiting deferred node waiting: the update
// is one more write, not the end of the run's pending work.
func TestUpdateStateKeepsADeferredNodeWaiting(t *testing.T) {
	t.Parallel()
	var a adding
	c := mustCompile(t, unevenBranches(&a, true), graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("b_2"))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.Error(t, err)
	_, err = c.UpdateState(t.Context(), state.Writes(trailField.Set([]string{"X"})), "b", graph.WithThread("t"))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"A", "B", "C", "X", "B_2", "D"}, out.Trail)
}
