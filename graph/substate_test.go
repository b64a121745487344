package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// nestedKeys is the state of LangGraph's test_nested_graph_state: the
// parent and the subgraph share it here (AddSubgraph is over one state).
type nestedKeys struct {
	MyKey      string
	MyOtherKey string
}

var (
	myKey      = state.Value("my_key", func(s *nestedKeys) *string { return &s.MyKey })
	myOtherKey = state.Value("my_other_key", func(s *nestedKeys) *string { return &s.MyOtherKey })
	nestedSc   = state.NewSchema(myKey, myOtherKey)
)

func keyNode(f func(s nestedKeys) []state.Write[nestedKeys]) graph.NodeFunc[nestedKeys] {
	return func(ctx context.Context, s nestedKeys) (state.Update[nestedKeys], error) {
		return state.Writes(f(s)...), nil
	}
}

// nestedStateGraph is test_nested_graph_state's graph: outer_1 → inner
// (inner_1 → inner_2, interrupted before inner_2) → outer_2.
func nestedStateGraph(t *testing.T) *graph.Compiled[nestedKeys] {
	t.Helper()
	inner, err := graph.New(nestedSc).
		AddNode("inner_1", keyNode(func(s nestedKeys) []state.Write[nestedKeys] {
			return []state.Write[nestedKeys]{myKey.Set(s.MyKey + " here"), myOtherKey.Set(s.MyKey)}
		})).
		AddNode("inner_2", keyNode(func(s nestedKeys) []state.Write[nestedKeys] {
			return []state.Write[nestedKeys]{myKey.Set(s.MyKey + " and there"), myOtherKey.Set(s.MyKey)}
		})).
		AddEdge(graph.Start, "inner_1").AddEdge("inner_1", "inner_2").AddEdge("inner_2", graph.End).
		Compile(graph.WithInterruptBefore("inner_2"))
	require.NoError(t, err)
	c, err := graph.New(nestedSc).
		AddNode("outer_1", keyNode(func(s nestedKeys) []state.Write[nestedKeys] {
			return []state.Write[nestedKeys]{myKey.Set("hi " + s.MyKey)}
		})).
		AddSubgraph("inner", inner).
		AddNode("outer_2", keyNode(func(s nestedKeys) []state.Write[nestedKeys] {
			return []state.Write[nestedKeys]{myKey.Set(s.MyKey + " and back again")}
		})).
		AddEdge(graph.Start, "outer_1").AddEdge("outer_1", "inner").AddEdge("inner", "outer_2").AddEdge("outer_2", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	return c
}

// Mirrors test_nested_graph_state: without subgraphs the pending inner
// task names its namespace (LangGraph's task.state config, "inner:<task
// id>") and has no state; with WithSubgraphs it carries the subgraph's own
// snapshot at its breakpoint (values, next inner_2, step 1, its config in
// that namespace); the subgraph's history is read in its namespace; the
// resume finishes with LangGraph's values.
func TestStateWithSubgraphsCarriesTheSubgraphsSnapshot(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	app := nestedStateGraph(t)
	_, err := app.Invoke(ctx, state.Writes(myKey.Set("my value")), graph.WithThread("1"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)

	plain, err := app.State(ctx, graph.WithThread("1"))
	require.NoError(t, err)
	require.Equal(t, nestedKeys{MyKey: "hi my value"}, plain.Values)
	require.Equal(t, []string{"inner"}, plain.Next)
	require.Equal(t, 1, plain.Metadata.Step)
	require.Len(t, plain.Tasks, 1)
	task := plain.Tasks[0]
	require.Equal(t, "inner:"+task.ID, task.Namespace)
	require.Nil(t, task.State, "without WithSubgraphs")

	withSubs, err := app.State(ctx, graph.WithThread("1"), graph.WithSubgraphs())
	require.NoError(t, err)
	child, ok := withSubs.Tasks[0].State.(*graph.Snapshot[nestedKeys])
	require.True(t, ok, "the inner task's State is the subgraph's snapshot, got %T", withSubs.Tasks[0].State)
	require.Equal(t, nestedKeys{MyKey: "hi my value here", MyOtherKey: "hi my value"}, child.Values)
	require.Equal(t, []string{"inner_2"}, child.Next)
	require.Equal(t, 1, child.Metadata.Step)
	require.Equal(t, "loop", string(child.Metadata.Source))
	require.Equal(t, task.Namespace, child.Config.Namespace)
	require.Len(t, child.Tasks, 1)
	require.Equal(t, "inner_2", child.Tasks[0].Node)
	require.Empty(t, child.Tasks[0].Namespace, "inner_2 is no subgraph")

	// The subgraph's own history, in its namespace (newest first).
	var steps []string
	for s, err := range app.History(ctx, graph.WithThread("1"), graph.WithNamespace(task.Namespace)) {
		require.NoError(t, err)
		steps = append(steps, string(s.Metadata.Source)+":"+strings.Join(s.Next, ","))
	}
	require.Equal(t, []string{"loop:inner_2", "loop:inner_1", "input:__start__"}, steps)
	// The parent's history never lists the subgraph's checkpoints.
	require.Len(t, history2(t, app, "1"), 3) // input, outer_1 next, inner next

	out, err := app.Invoke(ctx, state.Update[nestedKeys]{}, graph.WithThread("1"))
	require.NoError(t, err)
	require.Equal(t, "hi my value here and there and back again", out.MyKey)
	done, err := app.State(ctx, graph.WithThread("1"), graph.WithSubgraphs())
	require.NoError(t, err)
	require.Nil(t, done.Next)
	require.Nil(t, done.Tasks)
	require.Equal(t, 3, done.Metadata.Step)
}

func history2(t *testing.T, c *graph.Compiled[nestedKeys], thread string) []*graph.Snapshot[nestedKeys] {
	t.Helper()
	var out []*graph.Snapshot[nestedKeys]
	for s, err := range c.History(t.Context(), graph.WithThread(thread)) {
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// Mirrors test_doubly_nested_graph_state: State WithSubgraphs recurses,
// so the parent's pending child task carries the child's snapshot, whose
// pending grandchild task carries the grandchild's, stopped by an
// interrupt raised inside it; the namespaces nest as "child:<id>|grand:<id>".
func TestStateWithSubgraphsRecursesIntoEveryLevel(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	grand := mustCompile(t, graph.New(schema).
		AddNode("g1", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "ask")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(trailField.Set([]string{"g1:" + v})), nil
		}).
		AddEdge(graph.Start, "g1"))
	child := mustCompile(t, graph.New(schema).
		AddNode("c1", visit("c1")).AddSubgraph("grand", grand).
		AddEdge(graph.Start, "c1").AddEdge("c1", "grand"))
	app := mustCompile(t, graph.New(schema).
		AddNode("p1", visit("p1")).AddSubgraph("child", child).
		AddEdge(graph.Start, "p1").AddEdge("p1", "child"), graph.WithCheckpointer(memory.New()))
	_, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"))
	require.Error(t, err)

	snap, err := app.State(ctx, graph.WithThread("t"), graph.WithSubgraphs())
	require.NoError(t, err)
	require.Equal(t, []string{"p1"}, snap.Values.Trail)
	require.Len(t, snap.Tasks, 1)
	require.Len(t, snap.Tasks[0].Interrupts, 1, "the child task carries the grandchild's interrupt")
	cs, ok := snap.Tasks[0].State.(*graph.Snapshot[counter])
	require.True(t, ok)
	require.Equal(t, []string{"p1", "c1"}, cs.Values.Trail)
	require.Equal(t, []string{"grand"}, cs.Next)
	require.Len(t, cs.Tasks, 1)
	require.True(t, strings.HasPrefix(cs.Tasks[0].Namespace, snap.Tasks[0].Namespace+"|grand:"), cs.Tasks[0].Namespace)
	gs, ok := cs.Tasks[0].State.(*graph.Snapshot[counter])
	require.True(t, ok)
	require.Equal(t, []string{"g1"}, gs.Next)
	require.Len(t, gs.Tasks[0].Interrupts, 1)
	require.Equal(t, "ask", gs.Tasks[0].Interrupts[0].Value)
	require.Equal(t, cs.Tasks[0].Namespace, gs.Config.Namespace)
	// The parent reads any level by its namespace.
	direct, err := app.State(ctx, graph.WithThread("t"), graph.WithNamespace(gs.Config.Namespace))
	require.NoError(t, err)
	require.Equal(t, gs.Values, direct.Values)
	n := 0
	for s, err := range app.History(ctx, graph.WithThread("t"), graph.WithNamespace(gs.Config.Namespace)) {
		require.NoError(t, err)
		require.Equal(t, gs.Config.Namespace, s.Config.Namespace)
		n++
	}
	require.Equal(t, 2, n, "the grandchild's input and loop checkpoints")
	_, err = app.State(ctx, graph.WithThread("t"), graph.WithNamespace("p1:x"))
	require.ErrorContains(t, err, `"p1:x" is not a subgraph node's namespace`)

	// Answered, every level finishes and no task is left with a state.
	out, err := app.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "c1", "g1:yes"}, out.Trail)
	snap, err = app.State(ctx, graph.WithThread("t"), graph.WithSubgraphs())
	require.NoError(t, err)
	require.Nil(t, snap.Tasks)
}
