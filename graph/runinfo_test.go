package graph_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// infoLog records the Info of every node run, in order.
type infoLog struct {
	mu    sync.Mutex
	infos []graph.Info
}

func (l *infoLog) record(t *testing.T, ctx context.Context) graph.Info {
	in, ok := graph.RunInfo(ctx)
	assert.True(t, ok, "RunInfo inside a node")
	l.mu.Lock()
	defer l.mu.Unlock()
	l.infos = append(l.infos, in)
	return in
}

func (l *infoLog) of(node string) []graph.Info {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []graph.Info
	for _, in := range l.infos {
		if in.Node == node {
			out = append(out, in)
		}
	}
	return out
}

func TestRunInfoOutsideANode(t *testing.T) {
	t.Parallel()
	_, ok := graph.RunInfo(t.Context())
	require.False(t, ok)
}

// A node reads where it runs: thread, namespace, checkpoint, step (the
// first node runs in step 1), task id and node as the Tasks stream and the
// checkpoints name them, the call's run id, and its attempt under
// WithRetry.
func TestRunInfoNamesTheTask(t *testing.T) {
	t.Parallel()
	var log infoLog
	failures := 2
	g := graph.New(schema).
		AddNode("a", func(ctx context.Context, s counter) (state.Update[counter], error) {
			log.record(t, ctx)
			return state.Writes(nField.Set(1)), nil
		}).
		AddNode("b", func(ctx context.Context, s counter) (state.Update[counter], error) {
			in := log.record(t, ctx)
			if in.Attempt <= failures {
				return state.Update[counter]{}, errors.New("flaky")
			}
			return state.Writes(nField.Set(2)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond})).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	saver := memory.New()
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	taskIDs := map[string]string{}
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(0)), graph.WithThread("t1"), graph.WithRunID("run-1"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Task != nil && !ev.Task.Result {
			taskIDs[ev.Node] = ev.TaskID
		}
	}
	a, b := log.of("a"), log.of("b")
	require.Len(t, a, 1)
	require.Len(t, b, 3)
	assert.Equal(t, "t1", a[0].ThreadID)
	assert.Equal(t, "", a[0].Namespace)
	assert.Equal(t, 1, a[0].Step)
	assert.Equal(t, 2, b[0].Step)
	assert.Equal(t, "run-1", a[0].RunID)
	assert.Equal(t, -1, a[0].Send)
	assert.Equal(t, taskIDs["a"], a[0].TaskID)
	assert.Equal(t, taskIDs["b"], b[0].TaskID)
	assert.Equal(t, []int{1, 2, 3}, []int{b[0].Attempt, b[1].Attempt, b[2].Attempt})
	assert.Equal(t, 1, a[0].Attempt)

	// The checkpoint a task runs after is the one of the step before it.
	hist := history(t, c, "t1")
	byStep := map[int]string{}
	for _, s := range hist {
		byStep[s.Metadata.Step] = s.Config.CheckpointID
	}
	assert.Equal(t, byStep[0], a[0].CheckpointID)
	assert.Equal(t, byStep[1], b[0].CheckpointID)

	// One key per task: the same on every attempt, another for each task.
	assert.Equal(t, b[0].IdempotencyKey, b[2].IdempotencyKey)
	assert.NotEqual(t, a[0].IdempotencyKey, b[0].IdempotencyKey)
	assert.NotEmpty(t, a[0].IdempotencyKey)
}

// The idempotency key of a task is the same when the task runs again after
// an error (a resume) and differs across the Sends of one step, across
// steps and across threads.
func TestRunInfoIdempotencyKeyIsStablePerTask(t *testing.T) {
	t.Parallel()
	var log infoLog
	var fail sync.Map // item -> still failing
	fail.Store("y", true)
	g := graph.New(schema).
		AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
			log.record(t, ctx)
			return state.Update[counter]{Sends: []state.Send[counter]{
				{Node: "work", Arg: counter{Last: "x"}},
				{Node: "work", Arg: counter{Last: "y"}},
			}}, nil
		}, graph.WithDestinations("work")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			log.record(t, ctx)
			if f, _ := fail.Load(s.Last); f == true {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(itemsField.Set([]string{s.Last})), nil
		}).
		AddEdge(graph.Start, "fan")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t1"))
	require.Error(t, err)
	fail.Store("y", false)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("t1"))
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"x", "y"}, out.Items)

	work := log.of("work")
	require.Len(t, work, 3) // x, y, then y again on resume
	keys := map[int][]string{}
	for _, in := range work {
		keys[in.Send] = append(keys[in.Send], in.IdempotencyKey)
	}
	require.Len(t, keys[1], 2, "the failed Send ran twice")
	assert.Equal(t, keys[1][0], keys[1][1], "a resumed task keeps its key")
	assert.NotEqual(t, keys[0][0], keys[1][0], "two Sends of a step have two keys")
	assert.NotEqual(t, log.of("fan")[0].IdempotencyKey, keys[0][0])

	// Another thread running the same graph gets other keys.
	var other infoLog
	g2 := graph.New(schema).AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
		other.record(t, ctx)
		return zero, nil
	}).AddEdge(graph.Start, "fan")
	c2 := mustCompile(t, g2, graph.WithCheckpointer(memory.New()))
	_, err = c2.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t2"))
	require.NoError(t, err)
	assert.NotEqual(t, log.of("fan")[0].IdempotencyKey, other.of("fan")[0].IdempotencyKey)
}

// A subgraph's node reads the subgraph's namespace, the parent's thread
// and run id, and a step of the subgraph's own numbering.
func TestRunInfoInASubgraph(t *testing.T) {
	t.Parallel()
	var log infoLog
	inner := mustCompile(t, graph.New(schema).AddNode("leaf", func(ctx context.Context, s counter) (state.Update[counter], error) {
		log.record(t, ctx)
		return state.Writes(nField.Set(5)), nil
	}).AddEdge(graph.Start, "leaf"))
	outer := mustCompile(t, graph.New(schema).
		AddNode("top", func(ctx context.Context, s counter) (state.Update[counter], error) {
			log.record(t, ctx)
			return zero, nil
		}).
		AddSubgraph("sub", inner).AddEdge(graph.Start, "top").AddEdge("top", "sub"),
		graph.WithCheckpointer(memory.New()))
	var subTask string
	for ev, err := range outer.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t1"), graph.WithRunID("r1"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Node == "sub" && ev.Task != nil {
			subTask = ev.TaskID
		}
	}
	leaf := log.of("leaf")
	require.Len(t, leaf, 1)
	assert.Equal(t, "t1", leaf[0].ThreadID)
	assert.Equal(t, "r1", leaf[0].RunID)
	assert.Equal(t, "sub:"+subTask, leaf[0].Namespace)
	assert.Equal(t, 1, leaf[0].Step)
	assert.NotEqual(t, log.of("top")[0].IdempotencyKey, leaf[0].IdempotencyKey)
}

// Without a checkpointer a node still reads its node, step, attempt and
// run id, and a key per task.
func TestRunInfoWithoutACheckpointer(t *testing.T) {
	t.Parallel()
	var log infoLog
	g := graph.New(schema).
		AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{Sends: []state.Send[counter]{{Node: "work"}, {Node: "work"}}}, nil
		}, graph.WithDestinations("work")).
		AddNode("work", func(ctx context.Context, s counter) (state.Update[counter], error) {
			log.record(t, ctx)
			return zero, nil
		}).
		AddEdge(graph.Start, "fan")
	_, err := mustCompile(t, g).Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithRunID("r"))
	require.NoError(t, err)
	work := log.of("work")
	require.Len(t, work, 2)
	for _, in := range work {
		assert.Equal(t, 2, in.Step)
		assert.Equal(t, 1, in.Attempt)
		assert.Equal(t, "r", in.RunID)
		assert.Empty(t, in.TaskID)
		assert.NotEmpty(t, in.IdempotencyKey)
	}
	assert.NotEqual(t, work[0].IdempotencyKey, work[1].IdempotencyKey)
}
