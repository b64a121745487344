package graph_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

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

// checkpoint.TaskID is the runtime's own rule: readers without the graph
// (the inspector) find a step's tasks by it.
func TestTaskIDsFollowCheckpointTaskID(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("plan", visit("plan")).
		AddNode("side", visit("side")).
		AddNode("execute", visit("execute")).
		AddEdge(graph.Start, "plan").AddEdge("plan", "side").
		AddConditionalEdges("plan", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("execute", counter{N: 1}), graph.SendTo("execute", counter{N: 2})}, nil
		}), "execute")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("execute"))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	cp, step := snap.Config.CheckpointID, snap.Metadata.Step+1
	want := []string{
		checkpoint.TaskID(cp, "", step, "side", -1),
		checkpoint.TaskID(cp, "", step, "execute", 0),
		checkpoint.TaskID(cp, "", step, "execute", 1),
	}
	var got []string
	for _, task := range snap.Tasks {
		got = append(got, task.ID)
	}
	require.Equal(t, want, got)
}
