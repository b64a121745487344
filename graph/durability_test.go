package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// hookedSaver runs a hook before each Put; the hook may block or fail it.
type hookedSaver struct {
	checkpoint.Saver
	before func(req checkpoint.PutRequest) error
}

func (s hookedSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if err := s.before(req); err != nil {
		return checkpoint.Config{}, err
	}
	return s.Saver.Put(ctx, req)
}

func isLoopStep(req checkpoint.PutRequest, step int) bool {
	return req.Metadata.Source == checkpoint.SourceLoop && req.Metadata.Step == step
}

// Under DurabilityAsync the checkpoint of step 0 is stored while step 1
// runs: its Put can only return once node b has run.
func TestDurabilityAsyncSavesWhileTheNextStepRuns(t *testing.T) {
	t.Parallel()
	bRan := make(chan struct{})
	saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
		if !isLoopStep(req, 0) {
			return nil
		}
		select {
		case <-bRan:
			return nil
		case <-time.After(10 * time.Second): // a deadlock guard, not synchronisation
			return errors.New("node b did not run while step 0 was being stored")
		}
	}}
	g := graph.New(schema).
		AddNode("a", visit("a")).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			close(bRan)
			return visit("b")(ctx, s)
		}).
		AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))

	var saved []int
	var out counter
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Values|graph.Checkpoints)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Checkpoints:
			saved = append(saved, ev.Metadata.Step)
		case graph.Values:
			out = ev.State
		}
	}
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.Equal(t, []int{-1, 0, 1, 2}, saved, "every checkpoint is stored, in order, before the run returns")

	hist := history(t, c, "t")
	require.Len(t, hist, 4)
	for i, s := range hist[:3] {
		require.Equal(t, hist[i+1].Config.CheckpointID, s.Parent.CheckpointID, "checkpoint %d", i)
	}
	require.Equal(t, out, hist[0].Values)
	require.Empty(t, hist[0].Next)
}

// A background save that fails ends the run with its error, names the
// step, and leaves the thread at its last stored checkpoint, resumable.
func TestDurabilityAsyncSaveErrorEndsTheRunAndLosesNothingStored(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	var failing atomic.Bool
	failing.Store(true)
	saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
		if failing.Load() && isLoopStep(req, 1) {
			return errDisk
		}
		return nil
	}}
	var calls [3]atomic.Int64
	g := graph.New(schema).
		AddNode("a", counted(&calls[0], visit("a"))).
		AddNode("b", counted(&calls[1], visit("b"))).
		AddNode("c", counted(&calls[2], visit("c"))).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", "c")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))

	_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, errDisk)
	require.ErrorContains(t, err, "step 1")
	require.ErrorContains(t, err, `"t"`, "the error names the thread")

	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 0, snap.Metadata.Step, "the last stored checkpoint is intact")
	require.Equal(t, []string{"b"}, snap.Next)

	failing.Store(false)
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, out.Trail)
	require.EqualValues(t, 1, calls[0].Load(), "a's step was stored")
	require.EqualValues(t, 2, calls[1].Load(), "b's step was lost with its checkpoint")
}

// Every durability mode keeps a failed step's finished siblings and
// resumes without running them again.
func TestEveryDurabilityResumesWithoutRerunningFinishedSiblings(t *testing.T) {
	t.Parallel()
	for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync, graph.DurabilityExit} {
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			t.Parallel()
			var okCalls, flakyCalls atomic.Int64
			var failing atomic.Bool
			failing.Store(true)
			g := graph.New(schema).
				AddNode("pre", visit("pre")).
				AddNode("ok", counted(&okCalls, visit("ok"))).
				AddNode("flaky", counted(&flakyCalls, func(ctx context.Context, s counter) (state.Update[counter], error) {
					if failing.Load() {
						return state.Update[counter]{}, errors.New("service down")
					}
					return visit("flaky")(ctx, s)
				})).
				AddNode("after", visit("after")).
				AddEdge(graph.Start, "pre").AddEdge("pre", "ok").AddEdge("pre", "flaky").
				AddJoin([]string{"ok", "flaky"}, "after")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithDurability(d))
			_, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			var ne *graph.NodeError
			require.ErrorAs(t, err, &ne)
			require.Equal(t, "flaky", ne.Node)

			failing.Store(false)
			out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"pre", "flaky", "ok", "after"}, out.Trail)
			require.EqualValues(t, 1, okCalls.Load())
			require.EqualValues(t, 2, flakyCalls.Load())
		})
	}
}

// A subgraph run follows its parent run's durability, as in LangGraph,
// whatever the subgraph was compiled with.
func TestSubgraphFollowsTheParentsDurability(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		parent    graph.Durability
		innerPuts int // checkpoints stored in the subgraph's namespace
	}{
		{graph.DurabilitySync, 4}, // input, x, y, z
		{graph.DurabilityExit, 2}, // input, end
	} {
		t.Run(tc.parent.String(), func(t *testing.T) {
			t.Parallel()
			var innerPuts atomic.Int64
			saver := hookedSaver{Saver: memory.New(), before: func(req checkpoint.PutRequest) error {
				if req.Config.Namespace != "" {
					innerPuts.Add(1)
				}
				return nil
			}}
			inner := mustCompile(t, graph.New(schema).
				AddNode("x", visit("x")).AddNode("y", visit("y")).AddNode("z", visit("z")).
				AddEdge(graph.Start, "x").AddEdge("x", "y").AddEdge("y", "z"),
				graph.WithDurability(graph.DurabilitySync))
			g := graph.New(schema).AddSubgraph("sub", inner).AddNode("after", visit("after")).
				AddEdge(graph.Start, "sub").AddEdge("sub", "after")
			c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(tc.parent))
			out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, []string{"x", "y", "z", "after"}, out.Trail)
			require.EqualValues(t, tc.innerPuts, innerPuts.Load())
		})
	}
}

// A task stopped by the run's cancellation is not a failed task: nothing is
// recorded for it, the thread shows it pending (no error), and a resume
// runs it while its finished sibling stays done.
func TestCancelledTaskIsPendingNotFailed(t *testing.T) {
	t.Parallel()
	var slowCalls atomic.Int64
	g := graph.New(schema).
		AddNode("done", visit("done")).
		AddNode("slow", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if slowCalls.Add(1) == 1 {
				<-ctx.Done()
				return state.Update[counter]{}, fmt.Errorf("call the service: %w", ctx.Err())
			}
			return visit("slow")(ctx, s)
		}).
		AddEdge(graph.Start, "done").AddEdge(graph.Start, "slow")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for ev, err := range c.Stream(ctx, state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			break
		}
		if ev.Node == "done" && ev.Task.Result {
			cancel() // Ctrl-C, once done's writes are saved
		}
	}
	snap, err := c.State(t.Context(), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"slow"}, snap.Next)
	for _, task := range snap.Tasks {
		require.Empty(t, task.Error, "task %s", task.Node)
	}

	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"done", "slow"}, out.Trail)
	require.EqualValues(t, 2, slowCalls.Load())
}

func TestPayloadReadsTheNodesTypeFromEitherForm(t *testing.T) {
	t.Parallel()
	type question struct {
		Prompt string `json:"prompt"`
		Max    int    `json:"max"`
	}
	cases := []struct {
		name    string
		value   any
		want    question
		wantErr string
	}{
		{"as given", question{"how many?", 3}, question{"how many?", 3}, ""},
		{"as decoded from a checkpoint", map[string]any{"prompt": "how many?", "max": 3.0}, question{"how many?", 3}, ""},
		{"not that type", "how many?", question{}, `interrupt "i1" of node "ask"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := graph.Payload[question](graph.Interruption{ID: "i1", Node: "ask", Value: c.value})
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}
