package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/store"
	storemem "github.com/stategraph/stategraph/store/memory"
	"github.com/stretchr/testify/require"
)

// A store given at compile time reaches every node's context, across runs
// and threads, and the same store is what a caller reads afterwards.
func TestWithStoreReachesEveryNode(t *testing.T) {
	t.Parallel()
	st, err := storemem.New()
	require.NoError(t, err)
	ns := []string{"users", "u1"}
	g := graph.New(schema).AddNode("remember", func(ctx context.Context, s counter) (state.Update[counter], error) {
		s2 := store.From(ctx)
		if s2 == nil {
			return state.Update[counter]{}, errors.New("no store in the node's context")
		}
		n := 0
		if it, err := s2.Get(ctx, ns, "visits"); err == nil {
			n = int(it.Value["n"].(float64))
		}
		if err := s2.Put(ctx, ns, "visits", map[string]any{"n": n + 1}); err != nil {
			return state.Update[counter]{}, err
		}
		return state.Writes(nField.Set(n + 1)), nil
	}).AddEdge(graph.Start, "remember")
	c := mustCompile(t, g, graph.WithStore(st), graph.WithCheckpointer(memory.New()))

	for i, thread := range []string{"a", "b", "c"} {
		out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread(thread))
		require.NoError(t, err)
		require.Equal(t, i+1, out.N, "thread %s sees the visits of the threads before it", thread)
	}
	it, err := st.Get(t.Context(), ns, "visits")
	require.NoError(t, err)
	require.EqualValues(t, 3, it.Value["n"])
}
