package graph_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

func streamGraph(t *testing.T) *graph.Compiled[counter] {
	t.Helper()
	g := graph.New(schema).
		AddNode("talk", func(ctx context.Context, s counter) (state.Update[counter], error) {
			graph.Emit(ctx, "progress 50%")
			stream := graph.StreamingFunc(ctx)
			for _, tok := range []string{"hel", "lo"} {
				if err := stream(ctx, []byte(tok)); err != nil {
					return state.Update[counter]{}, err
				}
			}
			return state.Writes(lastField.Set("hello")), nil
		}).
		AddNode("a", visit("a")).AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
		graph.Emit(ctx, "from b")
		return state.Writes(trailField.Set([]string{"b"})), nil
	}).
		AddEdge(graph.Start, "talk").AddEdge("talk", "a").AddEdge("talk", "b")
	return mustCompile(t, g)
}

func TestStreamModes(t *testing.T) {
	t.Parallel()
	c := streamGraph(t)
	var got []string
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.StreamModes(graph.Values, graph.Updates, graph.Tasks, graph.Custom, graph.Messages)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Values:
			got = append(got, "values:"+ev.State.Last+":"+join(ev.State.Trail))
		case graph.Updates:
			got = append(got, "updates:"+ev.Node)
		case graph.Tasks:
			if ev.Task.Result {
				got = append(got, "result:"+ev.Node)
			} else {
				got = append(got, "start:"+ev.Node)
			}
		case graph.Custom:
			got = append(got, "custom:"+ev.Node+":"+ev.Custom.(string))
		case graph.Messages:
			got = append(got, "messages:"+ev.Node+":"+string(ev.Chunk))
		}
	}
	// The step with a and b runs them concurrently: their events may
	// interleave, so compare that part as a set.
	require.Equal(t, []string{
		"values::",
		"start:talk", "custom:talk:progress 50%", "messages:talk:hel", "messages:talk:lo", "updates:talk", "result:talk",
		"values:hello:",
	}, got[:8])
	require.ElementsMatch(t, []string{"start:a", "start:b", "custom:b:from b", "updates:a", "result:a", "updates:b", "result:b"}, got[8:15])
	require.Equal(t, []string{"values:hello:a,b"}, got[15:])
}

func TestStreamDefaultsToValues(t *testing.T) {
	t.Parallel()
	c := streamGraph(t)
	var steps []int
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}) {
		require.NoError(t, err)
		require.Equal(t, graph.Values, ev.Mode)
		steps = append(steps, ev.Step)
	}
	require.Equal(t, []int{-1, 0, 1}, steps)
}

func TestStreamEarlyBreakStopsTheRun(t *testing.T) {
	t.Parallel()
	var calls int
	g := graph.New(schema).AddNode("loop", func(ctx context.Context, s counter) (state.Update[counter], error) {
		calls++
		return state.Writes(nField.Set(s.N + 1)), nil
	}).AddEdge(graph.Start, "loop").AddEdge("loop", "loop")
	c := mustCompile(t, g)
	n := 0
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithRecursionLimit(1000)) {
		require.NoError(t, err)
		if ev.State.N == 3 {
			break
		}
		n++
	}
	require.Equal(t, 3, n)
	require.Equal(t, 3, calls)
}

func TestStreamEarlyBreakDuringConcurrentStep(t *testing.T) {
	t.Parallel()
	c := streamGraph(t)
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Custom)) {
		require.NoError(t, err)
		if ev.Node == "b" {
			break
		}
	}
	// goleak in TestMain checks that no task goroutine outlives the run.
}

func TestStreamEndsWithTheError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	g := graph.New(schema).AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
		return state.Update[counter]{}, boom
	}).AddEdge(graph.Start, "a")
	var errs []error
	for _, err := range mustCompile(t, g).Stream(t.Context(), state.Update[counter]{}) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], boom)
}

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

func TestSubgraphEventsWithSubgraphs(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).AddNode("x", visit("x")).AddEdge(graph.Start, "x"))
	g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub")
	var nss []string
	for ev, err := range mustCompile(t, g).Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		nss = append(nss, ev.Namespace+"/"+ev.Node)
	}
	require.Len(t, nss, 2)
	require.Regexp(t, `^sub:.*/x$`, nss[0])
	require.Equal(t, "/sub", nss[1])
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestStreamCheckpointsMode(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var steps []int
	var ids []string
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Checkpoints)) {
		require.NoError(t, err)
		require.Equal(t, graph.Checkpoints, ev.Mode)
		require.Equal(t, "t", ev.Checkpoint.ThreadID)
		steps = append(steps, ev.Metadata.Step)
		ids = append(ids, ev.Checkpoint.CheckpointID)
	}
	require.Equal(t, []int{-1, 0, 1}, steps)
	var hist []string
	for s, err := range c.History(t.Context(), graph.WithThread("t")) {
		require.NoError(t, err)
		hist = append([]string{s.Config.CheckpointID}, hist...)
	}
	require.Equal(t, ids, hist)
}

func TestTaskEventsSayWhichSend(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("split", visit("split")).
		AddNode("work", visit("work")).
		AddEdge(graph.Start, "split").
		AddConditionalEdges("split", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			return []graph.Send[counter]{graph.SendTo("work", counter{}), graph.SendTo("work", counter{})}, nil
		}), "work")
	var sends []int
	for ev, err := range mustCompile(t, g).Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Task.Result {
			sends = append(sends, ev.Task.Send)
		}
	}
	require.ElementsMatch(t, []int{-1, 0, 1}, sends)
}
