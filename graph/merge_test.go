package graph_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// Writes are applied in task order (nodes by name), never completion order.
func TestDeterministicMergeUnderRandomDelays(t *testing.T) {
	t.Parallel()
	names := []string{"e", "b", "d", "a", "c"}
	g := graph.New(schema)
	for _, n := range names {
		g.AddNode(n, func(ctx context.Context, s counter) (state.Update[counter], error) {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond) // simulated work, not synchronisation
			return state.Writes(trailField.Set([]string{n})), nil
		})
		g.AddEdge(graph.Start, n)
	}
	c := mustCompile(t, g)
	for range 20 {
		out, err := c.Invoke(t.Context(), state.Update[counter]{})
		require.NoError(t, err)
		require.Equal(t, []string{"a", "b", "c", "d", "e"}, out.Trail)
	}
}

func TestConflictingLastValueWritesNameFieldAndNodes(t *testing.T) {
	t.Parallel()
	set := func(v string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set(v)), nil
		}
	}
	g := graph.New(schema).AddNode("left", set("l")).AddNode("right", set("r")).
		AddEdge(graph.Start, "left").AddEdge(graph.Start, "right")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.ErrorIs(t, err, graph.ErrInvalidUpdate)
	require.ErrorContains(t, err, `field "last"`)
	require.ErrorContains(t, err, `"left" and "right"`)
	require.ErrorContains(t, err, "step 1")
}

func TestOverwriteReplacesReducerValue(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("add", visit("add")).
		AddNode("reset", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(trailField.Overwrite([]string{"reset"})), nil
		}).
		AddEdge(graph.Start, "add").AddEdge(graph.Start, "reset")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(trailField.Set([]string{"input"})))
	require.NoError(t, err)
	require.Equal(t, []string{"reset"}, out.Trail)
}

// Mirrors test_channels.py / test_pregel.py Overwrite tests
// (BinaryOperatorAggregate with Overwrite): an Overwrite replaces the
// field for the step whatever the order of the other writes, two
// Overwrites in one step are an InvalidUpdateError, and Overwrite works
// from the input and from update_state too.
func TestOverwriteReplacesTheFieldWhateverTheWriteOrder(t *testing.T) {
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
func TestZeroValuesAndEmptyUpdatesAreRealWrites(t *testing.T) {
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
			hist := history(t, cold, "t")
			require.Len(t, hist, 4)
			require.Equal(t, []string{"w"}, hist[1].Metadata.Nodes)
		})
	}
}
