package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// desk is a parent graph's state; team is its subgraph's.
type desk struct {
	Log  []string
	Note string
}

type team struct {
	Steps []string
}

var (
	deskLog    = state.Append("log", func(s *desk) *[]string { return &s.Log })
	deskNote   = state.Value("note", func(s *desk) *string { return &s.Note })
	deskSchema = state.NewSchema(deskLog, deskNote)
	teamSteps  = state.Append("steps", func(s *team) *[]string { return &s.Steps })
	teamSchema = state.NewSchema(teamSteps)
)

func deskNode(name string, runs *atomic.Int32) graph.NodeFunc[desk] {
	return func(context.Context, desk) (state.Update[desk], error) {
		runs.Add(1)
		return state.Writes(deskLog.Set([]string{name})), nil
	}
}

// handoffDesk is START → intake → team, where team is a subgraph over
// another state type (research → write) whose research node hands control
// to the parent's editor node with a note: write never runs.
func handoffDesk(t *testing.T, saver checkpoint.Saver, runs map[string]*atomic.Int32) *graph.Compiled[desk] {
	t.Helper()
	sub := graph.New(teamSchema).
		AddNode("research", func(context.Context, team) (state.Update[team], error) {
			runs["research"].Add(1)
			return state.Update[team]{}, graph.ToParent(state.Update[desk]{
				Writes: []state.Write[desk]{deskNote.Set("from research"), deskLog.Set([]string{"handoff"})},
				Goto:   []string{"editor"},
			})
		}).
		AddNode("write", func(context.Context, team) (state.Update[team], error) {
			runs["write"].Add(1)
			return state.Writes(teamSteps.Set([]string{"write"})), nil
		}).
		AddEdge(graph.Start, "research").AddEdge("research", "write")
	child, err := sub.Compile()
	require.NoError(t, err)
	g := graph.New(deskSchema).AddNode("intake", deskNode("intake", runs["intake"])).AddNode("editor", deskNode("editor", runs["editor"]))
	graph.AddSubgraphMapped(g, "team", child,
		func(desk) state.Update[team] { return state.Update[team]{} },
		func(desk, team) state.Update[desk] { return state.Writes(deskLog.Set([]string{"team done"})) },
		graph.WithDestinations("editor"))
	g.AddEdge(graph.Start, "intake").AddEdge("intake", "team")
	var opts []graph.CompileOption
	if saver != nil {
		opts = append(opts, graph.WithCheckpointer(saver))
	}
	c, err := g.Compile(opts...)
	require.NoError(t, err)
	return c
}

func newDeskRuns() map[string]*atomic.Int32 {
	m := map[string]*atomic.Int32{}
	for _, n := range []string{"intake", "research", "write", "editor"} {
		m[n] = new(atomic.Int32)
	}
	return m
}

func TestSubgraphNodeHandsControlToItsParent(t *testing.T) {
	t.Parallel()
	runs := newDeskRuns()
	out, err := handoffDesk(t, memory.New(), runs).Invoke(context.Background(), state.Update[desk]{}, graph.WithThread("h"))
	require.NoError(t, err)
	assert.Equal(t, desk{Log: []string{"intake", "handoff", "editor"}, Note: "from research"}, out)
	assert.Zero(t, runs["write"].Load(), "the subgraph stops at the handoff")
	assert.Equal(t, int32(1), runs["editor"].Load())
}

// Over the same state type (AddSubgraph) the subgraph node takes the
// command too.
func TestSameTypeSubgraphHandsControlToItsParent(t *testing.T) {
	t.Parallel()
	sub, err := graph.New(deskSchema).AddNode("inner", func(context.Context, desk) (state.Update[desk], error) {
		return state.Update[desk]{}, graph.ToParent(state.Update[desk]{Writes: []state.Write[desk]{deskLog.Set([]string{"inner"})}, Goto: []string{"after"}})
	}).AddEdge(graph.Start, "inner").Compile()
	require.NoError(t, err)
	var runs atomic.Int32
	c, err := graph.New(deskSchema).AddSubgraph("sub", sub, graph.WithDestinations("after")).AddNode("after", deskNode("after", &runs)).
		AddEdge(graph.Start, "sub").Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	out, err := c.Invoke(context.Background(), state.Update[desk]{}, graph.WithThread("s"))
	require.NoError(t, err)
	assert.Equal(t, []string{"inner", "after"}, out.Log)
}

// A node that is not in a subgraph over the command's type fails the run
// with an error naming the type and the goto; a retry policy does not
// retry it.
func TestHandoffWithoutAParentNamesTheType(t *testing.T) {
	t.Parallel()
	var tries atomic.Int32
	c, err := graph.New(teamSchema).AddNode("lonely", func(context.Context, team) (state.Update[team], error) {
		tries.Add(1)
		return state.Update[team]{}, graph.ToParent(state.Update[desk]{Goto: []string{"editor"}})
	}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3})).AddEdge(graph.Start, "lonely").Compile()
	require.NoError(t, err)
	_, err = c.Invoke(context.Background(), state.Update[team]{})
	require.Error(t, err)
	assert.True(t, graph.IsHandoff(err))
	assert.Contains(t, err.Error(), "goto [editor]")
	assert.Contains(t, err.Error(), "graph_test.desk")
	assert.Equal(t, int32(1), tries.Load())
	_, ok := graph.ParentUpdate[team](err)
	assert.False(t, ok, "a command for a desk is not one for a team")
}

// The saver fails at each write of the handoff run in turn (every later
// write failing too, as in a process that died there); a fresh process
// resumes the thread and reaches the uninterrupted run's result: the
// handoff's update applied once, the editor after it, the subgraph's
// write node never. (A node whose writes the crash lost runs again, as
// any node does: at least once, its writes applied once.)
func TestHandoffResumesAfterACrash(t *testing.T) {
	t.Parallel()
	want := desk{Log: []string{"intake", "handoff", "editor"}, Note: "from research"}
	ctx := context.Background()
	counting := &faultSaver{inner: memory.New()}
	out, err := handoffDesk(t, counting, newDeskRuns()).Invoke(ctx, state.Update[desk]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, want, out)
	total := counting.count()
	require.Greater(t, total, 3)
	for _, be := range crashBackends() {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			for failAt := 1; failAt <= total; failAt++ {
				first, reopen := be.open(t)
				runs := newDeskRuns()
				_, err := handoffDesk(t, &faultSaver{inner: first, failAt: failAt}, runs).Invoke(ctx, state.Update[desk]{}, graph.WithThread("t"))
				require.ErrorIs(t, err, errInjected, "write %d of %d", failAt, total)

				fresh := handoffDesk(t, reopen(), runs)
				_, err = fresh.State(ctx, graph.WithThread("t"))
				var in state.Update[desk]
				if !errors.Is(err, checkpoint.ErrNotFound) {
					require.NoError(t, err, "write %d of %d", failAt, total)
				}
				out, err := fresh.Invoke(ctx, in, graph.WithThread("t"))
				require.NoError(t, err, "write %d of %d", failAt, total)
				require.Equal(t, want, out, "failed at write %d of %d", failAt, total)
				assert.Zero(t, runs["write"].Load())
			}
		})
	}
}
