package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/telemetry"
)

func TestMetricsCountRunsStepsTasksAndCheckpoints(t *testing.T) {
	t.Parallel()
	tr := newTraced(t)
	fail := true
	g := graph.New(docs).AddNode("a", visit("a")).
		AddNode("b", func(ctx context.Context, d doc) (state.Update[doc], error) {
			if fail {
				fail = false
				return state.Update[doc]{}, errors.New("once")
			}
			return state.Writes(nF.Set(1)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: 1})).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("b", graph.End)
	c := compile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(tr), graph.WithName("m"))
	_, err := c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Writes(nF.Set(1)), graph.WithThread("t"), graph.InterruptBefore("b"))
	require.ErrorIs(t, err, graph.ErrInterrupted)

	ms := tr.collect(t)
	g1 := telemetry.KeyGraph.String("m")
	assert.Equal(t, int64(2), sum(ms[telemetry.MetricRunsStarted], g1))
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricRunsEnded], g1, telemetry.KeyOutcome.String("success")))
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricRunsEnded], g1, telemetry.KeyOutcome.String("interrupted")))
	n, _ := count[float64](ms[telemetry.MetricStepDuration], g1)
	assert.Equal(t, uint64(3), n, "two steps, then one before the interrupt")
	n, _ = count[float64](ms[telemetry.MetricTaskDuration], telemetry.KeyNode.String("a"))
	assert.Equal(t, uint64(2), n)
	n, _ = count[float64](ms[telemetry.MetricTaskDuration], telemetry.KeyNode.String("b"), telemetry.KeyOutcome.String("success"))
	assert.Equal(t, uint64(1), n)
	assert.Equal(t, int64(1), sum(ms[telemetry.MetricTaskRetries], telemetry.KeyNode.String("b")))
	n, _ = count[float64](ms[telemetry.MetricCheckpointDuration], telemetry.KeySaver.String("memory.Saver"))
	assert.Equal(t, uint64(7), n, "the first run: input, loop, a and b; the second: input, loop and a")
	sn, bytes := count[int64](ms[telemetry.MetricCheckpointSize])
	assert.Equal(t, n, sn)
	assert.Positive(t, bytes)
}
