package graph_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors LangGraph's subgraph invoked from a node's body
// (test_pregel.py's nested-graph interrupt tests: a node calls
// subgraph.invoke and the subgraph interrupts): the nested graph inherits
// the parent's checkpointer and thread in the namespace node:task-id, its
// interrupt stops the parent, and a resume answers it: the nested graph
// resumes from its checkpoint, its input is applied once, and a nested
// graph the node had finished before is not run again.
func TestGraphInvokedInANodeInheritsTheCheckpointer(t *testing.T) {
	t.Parallel()
	var askCalls, doneCalls atomic.Int64
	var askNS string
	first := mustCompile(t, graph.New(schema).
		AddNode("done", func(ctx context.Context, s counter) (state.Update[counter], error) {
			doneCalls.Add(1)
			return state.Writes(itemsField.Set([]string{"first"})), nil
		}).AddEdge(graph.Start, "done"))
	second := mustCompile(t, graph.New(schema).
		AddNode("q", func(ctx context.Context, s counter) (state.Update[counter], error) {
			askCalls.Add(1)
			in, _ := graph.RunInfo(ctx)
			askNS = in.Namespace
			name, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return zero, err
			}
			return state.Writes(lastField.Set(name)), nil
		}).AddEdge(graph.Start, "q"))
	var bodyCalls atomic.Int64
	var outerTask string
	saver := memory.New()
	outer := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			bodyCalls.Add(1)
			in, _ := graph.RunInfo(ctx)
			outerTask = in.TaskID
			a, err := first.Invoke(ctx, state.Writes(itemsField.Set([]string{"in"})))
			if err != nil {
				return zero, err
			}
			b, err := second.Invoke(ctx, state.Writes(itemsField.Set([]string{"in2"})))
			if err != nil {
				return zero, err
			}
			return state.Writes(lastField.Set(b.Last), itemsField.Set(append(a.Items, b.Items...))), nil
		}).AddEdge(graph.Start, "ask"), graph.WithCheckpointer(saver))

	_, err := outer.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Interrupts, 1)
	assert.Equal(t, "q", ie.Interrupts[0].Node)
	assert.Equal(t, "name?", ie.Interrupts[0].Value)
	snap := latestState(t, outer, "t")
	require.Len(t, snap.Interrupts, 1)
	assert.Equal(t, []string{"ask"}, snap.Next)
	require.True(t, strings.HasPrefix(askNS, "ask:"), "namespace %q", askNS)

	out, err := outer.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("bob"))
	require.NoError(t, err)
	assert.Equal(t, "bob", out.Last)
	assert.Equal(t, []string{"in", "first", "in2"}, out.Items, "each nested input applied once")
	assert.EqualValues(t, 2, bodyCalls.Load())
	assert.EqualValues(t, 2, askCalls.Load(), "the nested node re-runs from its start, as Interrupt says")
	assert.EqualValues(t, 1, doneCalls.Load(), "the nested graph that finished is not run again")

	// Both nested graphs' checkpoints are in the thread, each in its own
	// namespace under the parent's task, with the parent's checkpoint as
	// their parent.
	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: "t", Namespace: "ask:" + outerTask})
	require.NoError(t, err)
	assert.Contains(t, tup.Metadata.Parents, "")
	assert.NotEqual(t, "ask:"+outerTask, askNS, "the second nested graph has a namespace of its own")
}

// A graph invoked in a node of a run without a checkpointer, or with a
// thread of its own, is a run of its own, as before.
func TestGraphInvokedInANodeWithoutACheckpointerRunsAlone(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).AddNode("x", visit("x")).AddEdge(graph.Start, "x"))
	outer := mustCompile(t, graph.New(schema).
		AddNode("call", func(ctx context.Context, s counter) (state.Update[counter], error) {
			out, err := inner.Invoke(ctx, state.Writes(nField.Set(1)))
			if err != nil {
				return zero, err
			}
			return state.Writes(trailField.Set(out.Trail)), nil
		}).AddEdge(graph.Start, "call"))
	out, err := outer.Invoke(t.Context(), state.Writes(nField.Set(1)))
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, out.Trail)
}

// Mirrors LangGraph's stream(..., subgraphs=True) over a node that invokes
// a graph: the nested graph's events reach the parent's stream, tagged
// with the nested namespace (node:task-id), as a subgraph's do; a nested
// graph over another state type comes as Event.Nested. Without
// WithSubgraphs the parent's stream has only its own events.
func TestGraphInvokedInANodeStreamsToTheParentWithSubgraphs(t *testing.T) {
	t.Parallel()
	type other struct{ Word string }
	word := state.Value("word", func(s *other) *string { return &s.Word })
	same := mustCompile(t, graph.New(schema).
		AddNode("inner", func(ctx context.Context, s counter) (state.Update[counter], error) {
			graph.Emit(ctx, "from inner")
			return state.Writes(lastField.Set("inner")), nil
		}).AddEdge(graph.Start, "inner"))
	foreign, err := graph.New(state.NewSchema(word)).
		AddNode("speak", func(ctx context.Context, s other) (state.Update[other], error) {
			return state.Writes(word.Set("hello")), nil
		}).AddEdge(graph.Start, "speak").Compile()
	require.NoError(t, err)
	var ownEvents atomic.Int64
	outer := mustCompile(t, graph.New(schema).
		AddNode("ask", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if _, err := same.Invoke(ctx, state.Writes(nField.Set(1))); err != nil {
				return zero, err
			}
			for ev, err := range foreign.Stream(ctx, state.Writes(word.Set("hi")), graph.StreamModes(graph.Values)) {
				if err != nil {
					return zero, err
				}
				require.Equal(t, graph.Values, ev.Mode, "the node's own stream has the modes it asked for")
				ownEvents.Add(1)
			}
			return state.Writes(trailField.Set([]string{"ask"})), nil
		}).AddEdge(graph.Start, "ask"), graph.WithCheckpointer(memory.New()))

	type seen struct {
		mode graph.Mode
		ns   string
		node string
	}
	var got []seen
	var foreignUpdate graph.Event[other]
	for ev, err := range outer.Stream(t.Context(), state.Writes(nField.Set(0)), graph.WithThread("t"),
		graph.StreamModes(graph.Updates, graph.Custom), graph.WithSubgraphs()) {
		require.NoError(t, err)
		ns, _, _ := strings.Cut(ev.Namespace, ":")
		got = append(got, seen{ev.Mode, ns, ev.Node})
		if ev.Nested != nil {
			e, ok := ev.Nested.(graph.Event[other])
			require.True(t, ok, "%T", ev.Nested)
			foreignUpdate = e
			require.Equal(t, ev.Namespace, e.Namespace)
		}
	}
	assert.Equal(t, []seen{
		{graph.Custom, "ask", "inner"},
		{graph.Updates, "ask", "inner"},
		{graph.Updates, "ask", "speak"},
		{graph.Updates, "", "ask"},
	}, got)
	assert.Equal(t, "hello", foreignUpdate.Update.Writes[0].Value())
	assert.EqualValues(t, 2, ownEvents.Load(), "the node's own Stream saw the input's and the step's values")

	got = nil
	for ev, err := range outer.Stream(t.Context(), state.Writes(nField.Set(0)), graph.WithThread("t2"), graph.StreamModes(graph.Updates, graph.Custom)) {
		require.NoError(t, err)
		got = append(got, seen{ev.Mode, ev.Namespace, ev.Node})
	}
	assert.Equal(t, []seen{{graph.Updates, "", "ask"}}, got)
}
