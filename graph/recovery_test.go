package graph_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mirrors test_checkpoint_recovery (test_pregel.py), with its expected
// values: node1 fails on the first input; the thread stays at the input
// applied, with node1 next and its error recorded. New input (not a
// resume) starts again from START on top of that state: node1 and node2
// run, the steps are start, node1, node2, and the history holds six
// checkpoints (input -1, loop 0 with the failure, input 1, loop 2, 3, 4).
func TestNewInputAfterAFailureStartsOverOnTheSavedState(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("node1", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if s.N == 1 {
				return zero, errors.New("Simulated failure")
			}
			return state.Writes(trailField.Set([]string{"node1"})), nil
		}).
		AddNode("node2", visit("node2")).
		AddEdge(graph.Start, "node1").AddEdge("node1", "node2")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{"start"}), nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "Simulated failure")
	snap := latestState(t, c, "t")
	assert.Equal(t, counter{N: 1, Trail: []string{"start"}}, snap.Values, "the input is saved")
	assert.Equal(t, []string{"node1"}, snap.Next)
	require.Len(t, snap.Tasks, 1)
	assert.Contains(t, snap.Tasks[0].Error, "Simulated failure")

	out, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{}), nField.Set(2)), graph.WithThread("t"))
	require.NoError(t, err)
	assert.Equal(t, counter{N: 2, Trail: []string{"start", "node1", "node2"}}, out)
	hist := history(t, c, "t")
	require.Len(t, hist, 6)
	var steps []int
	var sources []checkpoint.Source
	failed := 0
	for _, h := range hist {
		steps = append(steps, h.Metadata.Step)
		sources = append(sources, h.Metadata.Source)
		if len(h.Tasks) > 0 && h.Tasks[0].Error != "" {
			failed++
			assert.Contains(t, h.Tasks[0].Error, "Simulated failure")
		}
	}
	assert.Equal(t, []int{4, 3, 2, 1, 0, -1}, steps)
	assert.Equal(t, []checkpoint.Source{"loop", "loop", "loop", "input", "loop", "input"}, sources)
	assert.Equal(t, 1, failed, "the failed checkpoint records the error")
}

// Mirrors test_multiple_interrupt_state_persistence (test_pregel.py): a
// node that calls Interrupt twice leaves the state untouched until it
// returns, across both stops; the second resume completes it with both
// answers.
func TestStateIsUntouchedAcrossAnInterruptedNodesStops(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("node", func(ctx context.Context, s counter) (state.Update[counter], error) {
			first, err := graph.Interrupt[string](ctx, "First interrupt")
			if err != nil {
				return zero, err
			}
			second, err := graph.Interrupt[string](ctx, "Second interrupt")
			if err != nil {
				return zero, err
			}
			return state.Writes(trailField.Set([]string{first, second})), nil
		}).
		AddEdge(graph.Start, "node")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(trailField.Set([]string{})), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	assert.Empty(t, latestState(t, c, "t").Values.Trail)
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("step1"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "Second interrupt", ie.Interrupts[0].Value)
	assert.Empty(t, latestState(t, c, "t").Values.Trail)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("step2"))
	require.NoError(t, err)
	assert.Equal(t, []string{"step1", "step2"}, out.Trail)
	assert.Equal(t, []string{"step1", "step2"}, latestState(t, c, "t").Values.Trail)
}

// Mirrors test_max_concurrency (test_pregel_async.py), its checkpointed
// part: 1 sends 100 tasks to 2, each 2 routes to 3, and the graph stops
// before 2. The state there is ["0", "1"]; the resume runs the hundred
// Sends, at most 10 at a time, and 3 once: "0", "1", 0…99, "3".
func TestInterruptBeforeAHundredSendsResumesThemAll(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int64
	g := graph.New(schema).
		AddNode("1", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"1"})), nil
		}).
		AddNode("2", func(ctx context.Context, s counter) (state.Update[counter], error) {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			defer running.Add(-1)
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddNode("3", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(itemsField.Set([]string{"3"})), nil
		}).
		AddEdge(graph.Start, "1").
		AddConditionalEdges("1", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
			var out []graph.Send[counter]
			for i := range 100 {
				out = append(out, graph.SendTo("2", counter{Last: strconv.Itoa(i)}))
			}
			return out, nil
		}), "2").
		AddConditionalEdges("2", graph.Choose(func(ctx context.Context, s counter) (string, error) { return "3", nil }), "3")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithInterruptBefore("2"))
	out, err := c.Invoke(t.Context(), state.Writes(itemsField.Set([]string{"0"})), graph.WithThread("t"), graph.WithMaxConcurrency(10))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	assert.Equal(t, []string{"0", "1"}, out.Items)
	assert.Equal(t, []string{"0", "1"}, latestState(t, c, "t").Values.Items)
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.WithMaxConcurrency(10))
	require.NoError(t, err)
	want := []string{"0", "1"}
	for i := range 100 {
		want = append(want, strconv.Itoa(i))
	}
	assert.Equal(t, append(want, "3"), out.Items)
	assert.LessOrEqual(t, most.Load(), int64(10))
}

// Mirrors test_cancel_graph_astream_events_v2 (test_pregel_async.py), with
// its expected values: a chain alittlewhile → awhile → anotherwhile; the
// consumer leaves once alittlewhile's update arrives. anotherwhile never
// starts, and the thread is at the loop checkpoint of step 1 (alittlewhile's
// step) with value 2 and awhile next.
func TestLeavingTheStreamInAChainStopsAtTheNextNode(t *testing.T) {
	t.Parallel()
	var another atomic.Bool
	g := graph.New(schema).
		AddNode("alittlewhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(2)), nil
		}).
		AddNode("awhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			<-ctx.Done()
			return zero, ctx.Err()
		}).
		AddNode("anotherwhile", func(ctx context.Context, s counter) (state.Update[counter], error) {
			another.Store(true)
			return zero, nil
		}).
		AddEdge(graph.Start, "alittlewhile").AddEdge("alittlewhile", "awhile").AddEdge("awhile", "anotherwhile")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"), graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		require.Equal(t, "alittlewhile", ev.Node)
		break
	}
	assert.False(t, another.Load())
	snap := requireNoTaskErrors(t, c, "t")
	assert.Equal(t, 2, snap.Values.N)
	assert.Equal(t, []string{"awhile"}, snap.Next)
	assert.Equal(t, 1, snap.Metadata.Step)
	assert.Equal(t, checkpoint.SourceLoop, snap.Metadata.Source)
}
