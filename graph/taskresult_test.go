package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors test_pregel.py's get_state_history expectations, where each
// PregelTask of a snapshot carries its result: every task of every
// checkpoint reports what it wrote — the input as the __start__ task's
// result, the only task of a step (whose writes the next checkpoint
// holds), and each of a step's parallel tasks.
func TestHistoryTasksReportTheirResults(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set("a"), trailField.Set([]string{"a"})), nil
		}).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(totalField.Set(2)), nil
		}).
		AddNode("c", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"c"})), nil
		}).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(7)), graph.WithThread("t"))
	require.NoError(t, err)

	type task struct {
		node   string
		result map[string]any
	}
	var got [][]task
	var steps []int
	for _, s := range history(t, c, "t") {
		var ts []task
		for _, tk := range s.Tasks {
			ts = append(ts, task{tk.Node, tk.Result})
		}
		got = append(got, ts)
		steps = append(steps, s.Metadata.Step)
	}
	assert.Equal(t, []int{2, 1, 0, -1}, steps)
	assert.Equal(t, [][]task{
		nil,
		{{"b", map[string]any{"total": 2}}, {"c", map[string]any{"items": []string{"c"}}}},
		{{"a", map[string]any{"last": "a", "trail": []string{"a"}}}},
		{{graph.Start, map[string]any{"n": 7}}},
	}, got)
}

// The latest snapshot reports the results of the tasks of its pending
// step that finished, and none for the one that failed.
func TestStateReportsResultsOfFinishedTasks(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("ok", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set("done")), nil
		}).
		AddNode("bad", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return zero, errors.New("boom")
		}).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.Error(t, err)
	snap := latestState(t, c, "t")
	require.Len(t, snap.Tasks, 2)
	byNode := map[string]graph.TaskInfo{}
	for _, tk := range snap.Tasks {
		byNode[tk.Node] = tk
	}
	assert.Equal(t, map[string]any{"last": "done"}, byNode["ok"].Result)
	assert.Nil(t, byNode["bad"].Result)
	assert.Contains(t, byNode["bad"].Error, "boom")
}
