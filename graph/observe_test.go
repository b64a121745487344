package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spanRec is one observed piece of work: a run, step, task or save.
type spanRec struct {
	kind, name string
	parent     *spanRec
	ended      bool
	attrs      map[string]any
}

func (s *spanRec) path() string {
	if s.parent == nil {
		return s.kind + ":" + s.name
	}
	return s.parent.path() + " > " + s.kind + ":" + s.name
}

type spanKey struct{}

// recorder is an Observer that records the tree of what it saw.
type recorder struct {
	mu    sync.Mutex
	spans []*spanRec
	meta  map[string]any // CheckpointMetadata's entries, if any
}

func (r *recorder) start(ctx context.Context, kind, name string, attrs map[string]any) (context.Context, *spanRec) {
	parent, _ := ctx.Value(spanKey{}).(*spanRec)
	s := &spanRec{kind: kind, name: name, parent: parent, attrs: attrs}
	r.mu.Lock()
	r.spans = append(r.spans, s)
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), s
}

func (r *recorder) end(s *spanRec, attrs map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.ended {
		panic("ended twice: " + s.path())
	}
	s.ended = true
	for k, v := range attrs {
		s.attrs[k] = v
	}
}

func (r *recorder) StartRun(ctx context.Context, rs graph.RunStart) (context.Context, func(graph.RunEnd)) {
	ctx, s := r.start(ctx, "run", rs.Namespace, map[string]any{"thread": rs.ThreadID, "run": rs.RunID, "graph": rs.Graph, "node": rs.Node})
	return ctx, func(e graph.RunEnd) {
		r.end(s, map[string]any{"from": e.From, "checkpoint": e.Checkpoint, "steps": e.Steps, "err": e.Err, "previous": e.Previous})
	}
}

func (r *recorder) StartStep(ctx context.Context, ss graph.StepStart) (context.Context, func(graph.StepEnd)) {
	ctx, s := r.start(ctx, "step", fmt.Sprint(ss.Step), map[string]any{"nodes": strings.Join(ss.Nodes, ","), "restored": ss.Restored})
	return ctx, func(e graph.StepEnd) { r.end(s, map[string]any{"err": e.Err}) }
}

func (r *recorder) StartTask(ctx context.Context, in graph.Info) (context.Context, func(graph.TaskEnd)) {
	ctx, s := r.start(ctx, "task", in.Node, map[string]any{"task": in.TaskID, "step": in.Step})
	return ctx, func(e graph.TaskEnd) {
		r.end(s, map[string]any{"attempts": e.Attempts, "err": e.Err, "interrupts": len(e.Interrupts), "writes": e.Writes})
	}
}

func (r *recorder) StartSave(ctx context.Context, ss graph.SaveStart) (context.Context, func(graph.SaveEnd)) {
	ctx, s := r.start(ctx, "save", string(ss.Source), map[string]any{"step": ss.Step, "bytes": ss.Bytes, "id": ss.CheckpointID})
	return ctx, func(e graph.SaveEnd) { r.end(s, map[string]any{"err": e.Err}) }
}

func (r *recorder) CheckpointMetadata(ctx context.Context) map[string]any { return r.meta }

// paths lists every span's path, in start order, and checks all ended.
func (r *recorder) paths(t *testing.T) []string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.spans))
	for _, s := range r.spans {
		assert.True(t, s.ended, "%s did not end", s.path())
		out = append(out, s.path())
	}
	return out
}

func (r *recorder) find(kind, name string) *spanRec {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if s.kind == kind && s.name == name {
			return s
		}
	}
	return nil
}

func TestObserverSeesRunStepsTasksAndSavesAsATree(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).AddNode("c", visit("c")).
		AddEdge(graph.Start, "a").AddEdge("a", "b").AddEdge("a", "c").AddEdge("b", graph.End).AddEdge("c", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(rec), graph.WithName("fan"))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t1"), graph.WithRunID("r1"))
	require.NoError(t, err)

	assert.Equal(t, []string{
		"run:",
		"run: > save:input",
		"run: > save:loop",
		"run: > step:1",
		"run: > step:1 > task:a",
		"run: > step:1 > save:loop",
		"run: > step:2",
		"run: > step:2 > task:b",
		"run: > step:2 > task:c",
		"run: > step:2 > save:loop",
	}, sortedTasks(rec.paths(t)))
	run := rec.find("run", "")
	assert.Equal(t, "t1", run.attrs["thread"])
	assert.Equal(t, "r1", run.attrs["run"])
	assert.Equal(t, "fan", run.attrs["graph"])
	assert.Equal(t, 2, run.attrs["steps"])
	assert.Nil(t, run.attrs["err"])
	snap := latestState(t, c, "t1")
	assert.Equal(t, snap.Config.CheckpointID, run.attrs["checkpoint"])
	assert.Equal(t, "b,c", rec.find("step", "2").attrs["nodes"])
	assert.Equal(t, 1, rec.find("task", "b").attrs["writes"])
	assert.Equal(t, 1, rec.find("task", "b").attrs["attempts"])
}

// sortedTasks orders each step's concurrent tasks by name (they start in
// any order), keeping everything else where it is.
func sortedTasks(paths []string) []string {
	out := append([]string(nil), paths...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && strings.Contains(out[j], "> task:") && strings.Contains(out[j-1], "> task:") && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestObserverSeesRetriesErrorsAndInterrupts(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	cs := &calls{}
	tries := 0
	g := graph.New(schema).
		AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
			tries++
			if tries < 2 {
				return state.Update[counter]{}, errors.New("transient")
			}
			return state.Writes(nField.Set(2)), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: 1})).
		AddNode("ask", askNode(cs, "ask")).
		AddEdge(graph.Start, "flaky").AddEdge("flaky", "ask").AddEdge("ask", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(rec))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	var ie *graph.InterruptError
	require.ErrorAs(t, err, &ie)

	assert.Equal(t, 2, rec.find("task", "flaky").attrs["attempts"])
	assert.Equal(t, 1, rec.find("task", "ask").attrs["interrupts"])
	assert.Nil(t, rec.find("task", "ask").attrs["err"])
	var stepErr *graph.InterruptError
	require.ErrorAs(t, rec.find("step", "2").attrs["err"].(error), &stepErr)
	require.ErrorAs(t, rec.find("run", "").attrs["err"].(error), &stepErr)
	rec.paths(t) // all ended

	failing := graph.New(schema).
		AddNode("boom", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Update[counter]{}, errors.New("broken")
		}).AddEdge(graph.Start, "boom").AddEdge("boom", graph.End)
	rec2 := &recorder{}
	c2 := mustCompile(t, failing, graph.WithCheckpointer(memory.New()), graph.WithObserver(rec2))
	_, err = c2.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.Error(t, err)
	var ne *graph.NodeError
	require.ErrorAs(t, rec2.find("task", "boom").attrs["err"].(error), &ne)
	assert.Equal(t, "boom", ne.Node)
	require.ErrorAs(t, rec2.find("run", "").attrs["err"].(error), &ne)
	rec2.paths(t)
}

func TestObserverSeesSubgraphRunsInsideTheirTask(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	inner := mustCompile(t, graph.New(schema).AddNode("x", visit("x")).AddEdge(graph.Start, "x").AddEdge("x", graph.End))
	g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub").AddEdge("sub", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(rec))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)

	var innerTask *spanRec
	for _, s := range rec.spans {
		if s.kind == "task" && s.name == "x" {
			innerTask = s
		}
	}
	require.NotNil(t, innerTask)
	path := innerTask.path()
	assert.Regexp(t, `^run: > step:1 > task:sub > run:sub:[^ ]+ > step:1 > task:x$`, path)
	assert.Equal(t, "sub", innerTask.parent.parent.attrs["node"])
	rec.paths(t)
}

func TestObserverLinksAResumedRunToThePreviousThroughMetadata(t *testing.T) {
	t.Parallel()
	rec := &recorder{meta: map[string]any{"trace": "first"}}
	cs := &calls{}
	g := graph.New(schema).AddNode("ask", askNode(cs, "ask")).AddEdge(graph.Start, "ask").AddEdge("ask", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()), graph.WithObserver(rec))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"), graph.WithMetadata(map[string]any{"user": "ann"}))
	require.Error(t, err)
	first := rec.find("run", "")
	assert.Nil(t, first.attrs["previous"], "a new thread continues nothing")

	snap := latestState(t, c, "t")
	assert.Equal(t, "first", snap.Metadata.Extra["trace"])
	assert.Equal(t, "ann", snap.Metadata.Extra["user"])

	rec.mu.Lock()
	rec.spans, rec.meta = nil, map[string]any{"trace": "second", "user": "observer"}
	rec.mu.Unlock()
	_, err = c.Invoke(t.Context(), zero, graph.WithThread("t"), graph.Resume("yes"), graph.WithMetadata(map[string]any{"user": "ann"}))
	require.NoError(t, err)
	second := rec.find("run", "")
	assert.Equal(t, snap.Config.CheckpointID, second.attrs["from"])
	assert.Equal(t, "first", second.attrs["previous"].(map[string]any)["trace"])
	after := latestState(t, c, "t")
	assert.Equal(t, "second", after.Metadata.Extra["trace"])
	assert.Equal(t, "ann", after.Metadata.Extra["user"], "the caller's metadata wins over the observer's")
}

func TestObserverSeesAsyncSavesEnd(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	c := mustCompile(t, chainABC(&calls{}, nil), graph.WithCheckpointer(memory.New()), graph.WithObserver(rec), graph.WithDurability(graph.DurabilityAsync))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.NoError(t, err)
	saves := 0
	for _, p := range rec.paths(t) {
		if strings.Contains(p, "save:") {
			saves++
		}
	}
	assert.Equal(t, 5, saves, "input, step 0 and one per node")
}

func TestObserverSeesAStreamConsumerLeavingAsCancelled(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	c := mustCompile(t, chainABC(&calls{}, nil), graph.WithCheckpointer(memory.New()), graph.WithObserver(rec))
	for range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t")) {
		break
	}
	err, _ := rec.find("run", "").attrs["err"].(error)
	assert.ErrorIs(t, err, context.Canceled)
	rec.paths(t)
}

// nsFailingSaver fails every read of a subgraph's namespace.
type nsFailingSaver struct{ checkpoint.Saver }

func (s nsFailingSaver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	if cfg.Namespace != "" {
		return nil, errors.New("disk gone")
	}
	return s.Saver.Get(ctx, cfg)
}

func TestObserverSeesASubgraphThatCannotStartEnd(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	inner := mustCompile(t, graph.New(schema).AddNode("x", visit("x")).AddEdge(graph.Start, "x").AddEdge("x", graph.End))
	g := graph.New(schema).AddSubgraph("sub", inner).AddEdge(graph.Start, "sub").AddEdge("sub", graph.End)
	c := mustCompile(t, g, graph.WithCheckpointer(nsFailingSaver{memory.New()}), graph.WithObserver(rec))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "disk gone")
	rec.paths(t) // every run, step and task ended, the subgraph's run included
	var sub *spanRec
	for _, s := range rec.spans {
		if s.kind == "run" && s.name != "" {
			sub = s
		}
	}
	require.NotNil(t, sub)
	assert.ErrorContains(t, sub.attrs["err"].(error), "disk gone")
}

// failingPutSaver fails the Put calls after the first ok ones.
type failingPutSaver struct {
	checkpoint.Saver
	ok   int
	puts atomic.Int64
}

func (s *failingPutSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if int(s.puts.Add(1)) > s.ok {
		return checkpoint.Config{}, errors.New("disk full")
	}
	return s.Saver.Put(ctx, req)
}

func TestObserverSeesTheLastStoredCheckpointWhenAnAsyncSaveFails(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	saver := &failingPutSaver{Saver: memory.New(), ok: 3} // input, step 0, step 1
	c := mustCompile(t, chainABC(&calls{}, nil), graph.WithCheckpointer(saver), graph.WithObserver(rec), graph.WithDurability(graph.DurabilityAsync))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t"))
	require.ErrorContains(t, err, "disk full")
	latest, err := saver.Saver.Get(t.Context(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	assert.Equal(t, latest.Config.CheckpointID, rec.find("run", "").attrs["checkpoint"], "the run's last checkpoint is one that was stored")
	rec.paths(t)
}
