package graph_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func TestSubgraphRunsOnParentState(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", visit("x")).
		AddNode("count", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(totalField.Set(10), lastField.Set("inner saw "+join(s.Trail))), nil
		}).
		AddEdge(graph.Start, "x").AddEdge("x", "count"))
	g := graph.New(schema).
		AddNode("before", visit("before")).
		AddSubgraph("sub", inner).
		AddNode("after", visit("after")).
		AddEdge(graph.Start, "before").AddEdge("before", "sub").AddEdge("sub", "after")
	out, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(totalField.Set(1)))
	require.NoError(t, err)
	require.Equal(t, []string{"before", "x", "after"}, out.Trail)
	require.Equal(t, 11, out.Total)
	require.Equal(t, "inner saw before,x", out.Last)
}

// Mirrors test_subgraph_checkpoint_true / state isolation of subgraphs:
// the subgraph reads the parent's state as of the start of the step (not a
// sibling's writes of that step), its own checkpoints stay out of the
// parent's history, and its result merges with the sibling's in task order.
func TestSubgraphReadsStepStartStateAndKeepsItsOwnHistory(t *testing.T) {
	t.Parallel()
	var seen []string
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", func(ctx context.Context, s counter) (state.Update[counter], error) {
			seen = slices.Clone(s.Trail)
			return state.Writes(trailField.Set([]string{"x"})), nil
		}).
		AddNode("y", visit("y")).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	g := graph.New(schema).
		AddNode("pre", visit("pre")).AddSubgraph("sub", inner).AddNode("side", visit("side")).AddNode("post", visit("post")).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub").AddEdge("pre", "side").
		AddJoin([]string{"side", "sub"}, "post")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre"}, seen, "the subgraph saw a sibling's write of its own step")
	require.Equal(t, []string{"pre", "side", "x", "y", "post"}, out.Trail)
	hist := history(t, c, "t")
	var nodes [][]string
	for _, s := range hist {
		nodes = append(nodes, s.Metadata.Nodes)
		require.Empty(t, s.Config.Namespace)
	}
	require.Equal(t, [][]string{{"post"}, {"side", "sub"}, {"pre"}, nil, nil}, nodes)
}

// A subgraph's update appends what it appended to an append field, like a
// node's — also when the field was empty (nil) in the parent. Two
// subgraphs appending in one step both count, and a sibling node's append
// in the same step is kept.
func TestParallelSubgraphsAppendToAnEmptyField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		g    func() *graph.StateGraph[counter]
		want []string
	}{
		{"two subgraphs", func() *graph.StateGraph[counter] {
			l := mustCompile(t, graph.New(schema).AddNode("l", visit("l")).AddEdge(graph.Start, "l"))
			r := mustCompile(t, graph.New(schema).AddNode("r", visit("r")).AddEdge(graph.Start, "r"))
			return graph.New(schema).AddSubgraph("left", l).AddSubgraph("right", r).
				AddEdge(graph.Start, "left").AddEdge(graph.Start, "right")
		}, []string{"l", "r"}},
		{"a subgraph and a node", func() *graph.StateGraph[counter] {
			l := mustCompile(t, graph.New(schema).AddNode("l", visit("l")).AddEdge(graph.Start, "l"))
			return graph.New(schema).AddSubgraph("left", l).AddNode("side", visit("side")).
				AddEdge(graph.Start, "left").AddEdge(graph.Start, "side")
		}, []string{"l", "side"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := mustCompile(t, tc.g()).Invoke(t.Context(), state.Writes(nField.Set(1)))
			require.NoError(t, err)
			require.Equal(t, tc.want, out.Trail)
		})
	}
}

func TestSubgraphCheckpointsInItsNamespaceAndResumes(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	var xCalls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", counted(&xCalls, visit("x"))).
		AddNode("y", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("y failed")
			}
			return state.Writes(trailField.Set([]string{"y"})), nil
		}).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	saver := memory.New()
	g := graph.New(schema).AddNode("pre", visit("pre")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorContains(t, err, "y failed")
	fail.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "x", "y"}, out.Trail)
	require.EqualValues(t, 1, xCalls.Load(), "the subgraph resumed from its own checkpoint")
}

// A node inside a subgraph calls Interrupt; the parent is resumed with
// Resume(v). The resume value must reach the subgraph's node.
func TestSubgraphInterruptResumes(t *testing.T) {
	t.Parallel()
	var askCalls atomic.Int64
	inner := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			askCalls.Add(1)
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(v)), nil
		}).
		AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddNode("pre", visit("pre")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume("ann"))
	require.NoError(t, err, "the resume value never reaches the subgraph's task")
	require.Equal(t, "ann", out.Last)
	require.EqualValues(t, 2, askCalls.Load())
}

// Same, answering by id (the id the parent's InterruptError reported).
func TestSubgraphInterruptResumesByID(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return state.Update[counter]{}, err
			}
			return state.Writes(lastField.Set(v)), nil
		}).
		AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"),
		graph.ResumeByID(map[string]any{ie.Interrupts[0].ID: "bob"}))
	require.NoError(t, err)
	require.Equal(t, "bob", out.Last)
}

// Mirrors test_nested_graph_interrupts / test_subgraph_checkpoint_true
// resume: an interrupt in a subgraph's second node stops the parent (whose
// State shows the subgraph task as next, with the interrupt); resuming
// continues the subgraph from its own checkpoint: the inner node before
// the interrupt and the parent's earlier node do not run again.
func TestSubgraphInterruptResumeSkipsFinishedInnerNodes(t *testing.T) {
	t.Parallel()
	var cs calls
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", cs.track("x")).AddNode("ask", askNode(&cs, "ask")).
		AddEdge(graph.Start, "x").AddEdge("x", "ask"))
	g := graph.New(schema).AddNode("pre", cs.track("pre")).AddSubgraph("sub", inner).AddNode("post", cs.track("post")).
		AddEdge(graph.Start, "pre").AddEdge("pre", "sub").AddEdge("sub", "post")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"sub"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, "ask?", snap.Interrupts[0].Value)
	require.Equal(t, []string{"pre"}, snap.Values.Trail, "the parent's state is unchanged until the subgraph returns")

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"pre", "x", "post"}, out.Trail)
	require.Equal(t, []string{"yes"}, out.Items)
	require.Equal(t, 1, cs.get("pre"))
	require.Equal(t, 1, cs.get("x"))
	require.Equal(t, 2, cs.get("ask"))
	require.Equal(t, 1, cs.get("post"))
}

// Mirrors test_node_not_cancelled_on_other_node_interrupted with a
// subgraph as the interrupting task (test_subgraph_checkpoint_true,
// parallel branch): the sibling that finished is not run again when the
// subgraph is resumed.
func TestSubgraphInterruptDoesNotRerunParallelSibling(t *testing.T) {
	t.Parallel()
	var cs calls
	inner := mustCompile(t, graph.New(schema).AddNode("ask", askNode(&cs, "ask")).AddEdge(graph.Start, "ask"))
	g := graph.New(schema).AddSubgraph("sub", inner).AddNode("side", cs.track("side")).
		AddEdge(graph.Start, "sub").AddEdge(graph.Start, "side")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"sub"}, snap.Next)
	require.Equal(t, []string{"side"}, snap.Values.Trail)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("ok"))
	require.NoError(t, err)
	require.Equal(t, []string{"side"}, out.Trail)
	require.Equal(t, []string{"ok"}, out.Items)
	require.Equal(t, 1, cs.get("side"))
	require.Equal(t, 2, cs.get("ask"))
}

// Mirrors test_doubly_nested_graph_interrupts: an interrupt two levels
// down stops the root with the innermost payload; the root's State lists
// the child task as next; each level's checkpoints live in their own
// namespace; resuming runs only the interrupted node at each level.
func TestDoublyNestedSubgraphInterruptResumesEachLevel(t *testing.T) {
	t.Parallel()
	var cs calls
	saver := newRecordingSaver()
	grand := mustCompile(t, graph.New(schema).
		AddNode("g1", cs.track("g1")).AddNode("ask", askNode(&cs, "ask")).AddNode("g2", cs.track("g2")).
		AddEdge(graph.Start, "g1").AddEdge("g1", "ask").AddEdge("ask", "g2"))
	child := mustCompile(t, graph.New(schema).
		AddNode("c1", cs.track("c1")).AddSubgraph("grand", grand).AddNode("c2", cs.track("c2")).
		AddEdge(graph.Start, "c1").AddEdge("c1", "grand").AddEdge("grand", "c2"))
	g := graph.New(schema).
		AddNode("p1", cs.track("p1")).AddSubgraph("child", child).AddNode("p2", cs.track("p2")).
		AddEdge(graph.Start, "p1").AddEdge("p1", "child").AddEdge("child", "p2")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	require.Equal(t, "ask?", ie.Interrupts[0].Value)
	require.Equal(t, "ask", ie.Interrupts[0].Node)
	snap := latestState(t, c, "t")
	require.Equal(t, []string{"child"}, snap.Next)
	require.Len(t, snap.Interrupts, 1)
	require.Equal(t, []string{"p1"}, snap.Values.Trail)

	// The child's namespace holds its own state: c1 ran, grand is next.
	childNS := "child:" + snap.Tasks[0].ID
	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t", Namespace: childNS})
	require.NoError(t, err)
	require.Equal(t, 1, tup.Metadata.Step)
	require.Equal(t, []string{"c1"}, tup.Metadata.Nodes)

	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"))
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "c1", "g1", "g2", "c2", "p2"}, out.Trail)
	require.Equal(t, []string{"yes"}, out.Items)
	for name, n := range map[string]int{"p1": 1, "c1": 1, "g1": 1, "ask": 2, "g2": 1, "c2": 1, "p2": 1} {
		require.Equal(t, n, cs.get(name), name)
	}
}

// Mirrors test_nested_graph_interrupts_parallel: two subgraph tasks in one
// step both interrupt; both are pending, a single Resume is ambiguous, and
// answering them by id finishes both without re-running their finished
// inner nodes.
func TestParallelSubgraphInterruptsAreAnsweredByID(t *testing.T) {
	t.Parallel()
	var cs calls
	mk := func(prefix string) *graph.Compiled[counter] {
		return mustCompile(t, graph.New(schema).
			AddNode(prefix+"1", cs.track(prefix+"1")).AddNode(prefix+"ask", askNode(&cs, prefix+"ask")).
			AddEdge(graph.Start, prefix+"1").AddEdge(prefix+"1", prefix+"ask"))
	}
	g := graph.New(schema).AddSubgraph("left", mk("l")).AddSubgraph("right", mk("r")).AddNode("end", cs.track("end")).
		AddEdge(graph.Start, "left").AddEdge(graph.Start, "right").AddJoin([]string{"left", "right"}, "end")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	// The input makes trail and items non-empty: see
	// TestParallelSubgraphsAppendToAnEmptyField for the empty case.
	_, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{"in"}), itemsField.Set([]string{"in"})), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 2)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("x"))
	require.ErrorIs(t, err, graph.ErrAmbiguousResume)
	answers := map[string]any{}
	for _, in := range ie.Interrupts {
		answers[in.ID] = "ans-" + in.Node
	}
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.ResumeByID(answers))
	require.NoError(t, err)
	require.Equal(t, []string{"in", "ans-lask", "ans-rask"}, out.Items)
	require.Equal(t, []string{"in", "l1", "r1", "end"}, out.Trail)
	for name, n := range map[string]int{"l1": 1, "r1": 1, "lask": 2, "rask": 2, "end": 1} {
		require.Equal(t, n, cs.get(name), name)
	}
}

// A subgraph's writes to merge and custom fields reach its parent as
// writes, applied through the parent's reducers beside a sibling's writes
// in the same step (LangGraph applies a subgraph's output to its parent's
// channels through their reducers): neither the sibling's write nor the
// subgraph's is lost, on every saver and without one.
func TestSubgraphWritesToReducedFieldsGoThroughTheParentsReducer(t *testing.T) {
	t.Parallel()
	sub := graph.New(shSchema).
		AddNode("s1", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			return state.Writes(shR.Set("x"), shM.Set(map[string]int{"s1": 1})), nil
		}).
		AddNode("s2", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			return state.Writes(shR.Set("y"), shM.Set(map[string]int{"s2": len(s.R)})), nil
		}).
		AddEdge(graph.Start, "s1").AddEdge("s1", "s2")
	subc, err := sub.Compile()
	require.NoError(t, err)
	build := func(opts ...graph.CompileOption) *graph.Compiled[shaped] {
		g := graph.New(shSchema).
			AddSubgraph("sub", subc).
			AddNode("sib", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
				return state.Writes(shR.Set("z"), shM.Set(map[string]int{"sib": 1})), nil
			}).
			AddEdge(graph.Start, "sub").AddEdge(graph.Start, "sib")
		c, err := g.Compile(opts...)
		require.NoError(t, err)
		return c
	}
	// Tasks apply in node-name order: sib, then the subgraph's writes in
	// the order its steps made them.
	want := shaped{R: "<zxy", M: map[string]int{"in": 0, "sib": 1, "s1": 1, "s2": 2}}
	input := state.Writes(shR.Set("<"), shM.Set(map[string]int{"in": 0}))
	out, err := build().Invoke(t.Context(), input)
	require.NoError(t, err)
	require.Equal(t, want, out)
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			out, err := build(graph.WithCheckpointer(saver)).Invoke(t.Context(), input, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, want, out)
			snap, err := build(graph.WithCheckpointer(saver)).State(t.Context(), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, want, snap.Values)
		})
	}
}

// The same, when the subgraph stops at an interrupt after its first step
// and the parent is resumed: the writes of the subgraph's steps before the
// interrupt (made by the first call) still reach the parent as writes
// through its reducers, not as an overwrite that drops the sibling's.
func TestResumedSubgraphWritesToReducedFieldsGoThroughTheParentsReducer(t *testing.T) {
	t.Parallel()
	sub := graph.New(shSchema).
		AddNode("s1", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			return state.Writes(shR.Set("x"), shM.Set(map[string]int{"s1": 1})), nil
		}).
		AddNode("s2", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
			v, err := graph.Interrupt[int](ctx, "how much?")
			if err != nil {
				return state.Update[shaped]{}, err
			}
			return state.Writes(shR.Set("y"), shM.Set(map[string]int{"s2": v})), nil
		}).
		AddEdge(graph.Start, "s1").AddEdge("s1", "s2")
	subc, err := sub.Compile()
	require.NoError(t, err)
	input := state.Writes(shR.Set("<"), shM.Set(map[string]int{"in": 0}))
	want := shaped{R: "<zxy", M: map[string]int{"in": 0, "sib": 1, "s1": 1, "s2": 7}}
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			g := graph.New(shSchema).
				AddSubgraph("sub", subc).
				AddNode("sib", func(ctx context.Context, s shaped) (state.Update[shaped], error) {
					return state.Writes(shR.Set("z"), shM.Set(map[string]int{"sib": 1})), nil
				}).
				AddEdge(graph.Start, "sub").AddEdge(graph.Start, "sib")
			c, err := g.Compile(graph.WithCheckpointer(saver))
			require.NoError(t, err)
			_, err = c.Invoke(t.Context(), input, graph.WithThread("t"))
			require.ErrorIs(t, err, graph.ErrInterrupted)
			out, err := c.Invoke(t.Context(), state.Update[shaped]{}, graph.WithThread("t"), graph.Resume(7))
			require.NoError(t, err)
			require.Equal(t, want, out)
			snap, err := c.State(t.Context(), graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, want, snap.Values)
		})
	}
}
