package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// job is the state of TestSendArgSurvivesResume: Item is a per-Send input
// outside the schema.
type job struct {
	Item    string // per-Send input, not a channel of the graph
	Results []string
}

var (
	resultsField = state.Append("results", func(s *job) *[]string { return &s.Results })
	jobSchema    = state.NewSchema[job](resultsField)
)

func TestSendFanOutWithPerSendInput(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("split", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, nil
		}).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{s.Last + "!"}), totalField.Set(len(s.Last))), nil
		}).
		AddNode("reduce", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(lastField.Set(fmt.Sprint(len(s.Items)))), nil
		}).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			var out []graph.Send[counter]
			for _, w := range []string{"x", "yy", "zzz"} {
				out = append(out, graph.SendTo("work", counter{Last: w}))
			}
			return out, nil
		}), "work").
		AddEdge("work", "reduce")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Update[counter]{})
	require.NoError(t, err)
	require.Equal(t, []string{"x!", "yy!", "zzz!"}, out.Items) // Sends by index
	require.Equal(t, 6, out.Total)
	require.Equal(t, "3", out.Last)
}

// Mirrors test_send_sequences / test_send_dedupe_on_resume (PUSH vs PULL
// tasks): a node reached in one step by an edge and by a Send runs twice —
// once on the state, once on the Send's argument — and the node's static
// edge after it triggers its successor once.
func TestSendAndEdgeToOneNodeRunItTwice(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("a", cs.track("a")).
		AddNode("w", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("w")
			return state.Writes(itemsField.Set([]string{"w:" + s.Last})), nil
		}).
		AddNode("after", cs.track("after")).
		AddEdge(graph.Start, "a").
		AddEdge("a", "w").
		AddConditionalEdges("a", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("w", counter{Last: "sent"})}, nil
		}), "w").
		AddEdge("w", "after")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(lastField.Set("state")))
	require.NoError(t, err)
	require.Equal(t, 2, cs.get("w"))
	require.Equal(t, []string{"w:state", "w:sent"}, out.Items, "the triggered task applies before the Send")
	require.Equal(t, 1, cs.get("after"))
	require.Equal(t, []string{"a", "after"}, out.Trail)
}

// Mirrors Command(goto=[Send(...)]) (test_command_with_send /
// test_send_sequences): Sends returned in a node's update run in the next
// step beside its static edges and router Sends, each with its argument.
func TestSendsInAnUpdateRunBesideEdgesAndRouterSends(t *testing.T) {
	t.Parallel()
	var cs calls
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{
				Writes: []state.Write[counter]{trailField.Set([]string{"a"})},
				Sends:  []graph.Send[counter]{graph.SendTo("w", counter{Last: "cmd1"}), graph.SendTo("w", counter{Last: "cmd2"})},
			}, nil
		}, graph.WithDestinations("w")).
		AddNode("w", func(ctx context.Context, s counter) (state.Update[counter], error) {
			cs.inc("w")
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("b", cs.track("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").
		AddConditionalEdges("a", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("w", counter{Last: "router"})}, nil
		}), "w")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 3, cs.get("w"))
	require.Equal(t, 1, cs.get("b"))
	require.ElementsMatch(t, []string{"router", "cmd1", "cmd2"}, out.Items)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	hist := history(t, c, "t")
	require.Equal(t, []string{"b", "w", "w", "w"}, hist[0].Metadata.Nodes, "one entry per task: each Send is one")
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

func TestSendsAndJoinsSurviveResume(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	var workCalls atomic.Int64
	g := graph.New(schema).
		AddNode("split", visit("split")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			workCalls.Add(1)
			if s.Last == "b" && fail.Load() {
				return state.Update[counter]{}, errors.New("b failed")
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("sum", visit("sum")).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{Last: "a"}), graph.SendTo("work", counter{Last: "b"}), graph.SendTo("work", counter{Last: "c"})}, nil
		}), "work").
		AddEdge("work", "sum")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	require.EqualValues(t, 3, workCalls.Load())
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Items)
	require.EqualValues(t, 4, workCalls.Load())
	require.Equal(t, []string{"split", "sum"}, out.Trail)
}

// A Send's argument is the task's whole input. Resuming the step that
// holds the Send (after a sibling failed) must give the task the same
// input as the first attempt; the schedule encodes only the schema's
// fields, so an argument field outside the schema comes back zero.
func TestSendArgSurvivesResume(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	work := func(ctx context.Context, s job) (state.Update[job], error) {
		if s.Item == "b" && fail.Load() {
			return state.Update[job]{}, errors.New("b failed")
		}
		return state.Writes(resultsField.Set([]string{"did:" + s.Item})), nil
	}
	g := graph.New(jobSchema).
		AddNode("split", func(ctx context.Context, s job) (state.Update[job], error) {
			return state.Update[job]{}, nil
		}).
		AddNode("work", work).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s job) ([]graph.Send[job], error) {
			return []graph.Send[job]{graph.SendTo("work", job{Item: "a"}), graph.SendTo("work", job{Item: "b"})}, nil
		}), "work")
	c, err := g.Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Update[job]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "b failed")
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[job]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"did:a", "did:b"}, out.Results)
}
