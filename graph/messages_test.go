package graph_test

import (
	"context"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// talker streams two chunks named after the node.
func talker(name string) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		send := graph.StreamingFunc(ctx, "")
		for _, tok := range []string{name + "-1", name + "-2"} {
			if err := send(ctx, []byte(tok)); err != nil {
				return zero, err
			}
		}
		return state.Writes(trailField.Set([]string{name})), nil
	}
}

// Mirrors LangGraph's messages stream mode, whose items are (chunk,
// metadata) with langgraph_node, langgraph_step, checkpoint_ns and the
// task id: every Messages event names the node, step, task and namespace
// it came from, for a task run alone, for tasks running concurrently and
// for a subgraph's task (WithSubgraphs), and they match the Tasks events
// of the same task.
func TestMessagesEventsCarryTheirTask(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).AddNode("deep", talker("deep")).AddEdge(graph.Start, "deep"))
	c := mustCompile(t, graph.New(schema).
		AddNode("solo", talker("solo")).
		AddNode("p", talker("p")).AddNode("q", talker("q")).
		AddSubgraph("sub", inner).
		AddEdge(graph.Start, "solo").AddEdge("solo", "p").AddEdge("solo", "q").AddEdge("solo", "sub"),
		graph.WithCheckpointer(memory.New()))
	type key struct{ ns, node string }
	type task struct {
		id   string
		step int
	}
	tasks := map[key]task{}
	chunks := map[key][]string{}
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"), graph.WithSubgraphs(), graph.StreamModes(graph.Tasks, graph.Messages)) {
		require.NoError(t, err)
		k := key{ev.Namespace, ev.Node}
		switch ev.Mode {
		case graph.Tasks:
			if !ev.Task.Result {
				tasks[k] = task{ev.TaskID, ev.Step}
			}
		case graph.Messages:
			tk, ok := tasks[k]
			require.True(t, ok, "a chunk of %v after its task started", k)
			assert.Equal(t, tk.id, ev.TaskID, "task id of %v", k)
			assert.Equal(t, tk.step, ev.Step, "step of %v", k)
			assert.NotEmpty(t, ev.TaskID)
			chunks[k] = append(chunks[k], string(ev.Chunk))
		}
	}
	subNS := "sub:" + tasks[key{"", "sub"}].id
	assert.Equal(t, map[key][]string{
		{"", "solo"}:    {"solo-1", "solo-2"},
		{"", "p"}:       {"p-1", "p-2"},
		{"", "q"}:       {"q-1", "q-2"},
		{subNS, "deep"}: {"deep-1", "deep-2"},
	}, chunks)
	assert.Equal(t, 1, tasks[key{"", "solo"}].step, "the first node runs in step 1")
	assert.Equal(t, 2, tasks[key{"", "p"}].step)
	assert.Equal(t, 1, tasks[key{subNS, "deep"}].step, "a subgraph numbers its own steps")
}
