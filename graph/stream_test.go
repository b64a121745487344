package graph_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
			stream := graph.StreamingFunc(ctx, "")
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
	require.Equal(t, []int{0, 1, 2}, steps, "the input applied (0), then a node per step")
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

// A consumer that stops the stream right after a task's result does not
// lose that task's work: the step's checkpoint is still saved, and resuming
// does not run the node again.
func TestBreakAfterTaskResultKeepsItsWork(t *testing.T) {
	t.Parallel()
	var aCalls atomic.Int64
	g := graph.New(schema).AddNode("a", counted(&aCalls, visit("a"))).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Node == "a" && ev.Task.Result {
			break
		}
	}
	out, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, out.Trail)
	require.EqualValues(t, 1, aCalls.Load())
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
	require.Equal(t, []int{-1, 0, 1, 2}, steps)
	var hist []string
	for s, err := range c.History(t.Context(), graph.WithThread("t")) {
		require.NoError(t, err)
		hist = append([]string{s.Config.CheckpointID}, hist...)
	}
	require.Equal(t, ids, hist)
}

// The Checkpoints stream yields exactly the checkpoints History holds, in
// order, in every durability (under async each is yielded once stored,
// that is, while or after the next step runs).
func TestCheckpointsStreamMatchesHistoryInEveryDurability(t *testing.T) {
	t.Parallel()
	for _, d := range allDurabilities {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			var cs calls
			// Quick nodes: async would save inline (as sync does) but for
			// AlwaysSaveInBackground.
			c := mustCompile(t, chainABC(&cs, nil), graph.WithCheckpointer(memory.New()), graph.WithDurability(d), graph.AlwaysSaveInBackground())
			var ids []string
			var order []string
			for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Checkpoints, graph.Values)) {
				require.NoError(t, err)
				switch ev.Mode {
				case graph.Checkpoints:
					ids = append(ids, ev.Checkpoint.CheckpointID)
					order = append(order, fmt.Sprintf("cp%d", ev.Metadata.Step))
				case graph.Values:
					order = append(order, fmt.Sprintf("v%d", ev.Step))
				}
			}
			var hist []string
			for _, s := range history(t, c, "t") {
				hist = append([]string{s.Config.CheckpointID}, hist...)
			}
			require.Equal(t, hist, ids)
			switch d {
			case graph.DurabilitySync:
				// The input checkpoint holds the state before the input: the
				// first values are the input applied (step 0).
				require.Equal(t, []string{"cp-1", "cp0", "v0", "cp1", "v1", "cp2", "v2", "cp3", "v3"}, order)
			case graph.DurabilityAsync:
				// Each checkpoint is announced once stored: after the next
				// step's tasks, before its values.
				require.Equal(t, []string{"cp-1", "v0", "cp0", "v1", "cp1", "v2", "cp2", "v3", "cp3"}, order)
			}
		})
	}
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

// Mirrors test_stream_updates / stream_mode="updates" with parallel nodes
// (including {"node": None} for a node that returns nothing): one event per
// task with its writes, all of a step before any of the next.
func TestStreamUpdatesForParallelNodes(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("a", visit("a")).AddNode("b", visit("b")).
		AddNode("n", func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(7)), nil
		}).
		AddNode("empty", func(ctx context.Context, s counter) (state.Update[counter], error) { return zero, nil }).
		AddNode("last", visit("last")).
		AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").AddEdge(graph.Start, "n").AddEdge(graph.Start, "empty").
		AddJoin([]string{"a", "b", "n", "empty"}, "last")
	type upd struct {
		step   int
		node   string
		fields string
	}
	var got []upd
	for ev, err := range mustCompile(t, g).Stream(t.Context(), zero, graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		require.Equal(t, graph.Updates, ev.Mode)
		f := ""
		for _, w := range ev.Update.Writes {
			f += fmt.Sprintf("%s=%v;", w.Field(), w.Value())
		}
		got = append(got, upd{ev.Step, ev.Node, f})
	}
	require.Len(t, got, 5)
	require.ElementsMatch(t, []upd{
		{1, "a", "trail=[a];"}, {1, "b", "trail=[b];"}, {1, "n", "n=7;"}, {1, "empty", ""},
	}, got[:4])
	require.Equal(t, upd{2, "last", "trail=[last];"}, got[4])
}

// Mirrors test_debug_retry / stream_mode="debug" (task and task_result
// payloads): each task's start, then its result with its error and the
// attempts it took; a resumed task whose writes were saved is reported as
// cached and does not run.
func TestStreamTasksReportAttemptsErrorsAndCachedResults(t *testing.T) {
	t.Parallel()
	var fails atomic.Int64
	var down atomic.Bool
	down.Store(true)
	g := graph.New(schema).
		AddNode("retry", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fails.Add(1) < 3 {
				return state.Update[counter]{}, errors.New("transient")
			}
			return state.Writes(trailField.Set([]string{"retry"})), nil
		}, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Microsecond})).
		AddNode("bad", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if down.Load() {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(trailField.Set([]string{"bad"})), nil
		}).
		AddEdge(graph.Start, "retry").AddEdge(graph.Start, "bad")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	type res struct {
		attempts int
		err      string
		cached   bool
	}
	collect := func() (starts []string, results map[string]res, streamErr error) {
		results = map[string]res{}
		for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
			if err != nil {
				streamErr = err
				continue
			}
			require.Equal(t, graph.Tasks, ev.Mode)
			require.NotEmpty(t, ev.TaskID)
			require.Equal(t, -1, ev.Task.Send)
			if !ev.Task.Result {
				require.NotContains(t, results, ev.Node, "a result came before its start")
				starts = append(starts, ev.Node)
				continue
			}
			r := res{attempts: ev.Task.Attempts, cached: ev.Task.Cached}
			if ev.Task.Err != nil {
				r.err = ev.Task.Err.Error()
			}
			results[ev.Node] = r
		}
		return starts, results, streamErr
	}
	starts, results, err := collect()
	require.Error(t, err)
	require.ElementsMatch(t, []string{"bad", "retry"}, starts)
	require.Equal(t, 3, results["retry"].attempts)
	require.Empty(t, results["retry"].err)
	require.Equal(t, 1, results["bad"].attempts)
	require.Contains(t, results["bad"].err, "down")

	down.Store(false)
	starts, results, err = collect()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"bad", "retry"}, starts)
	require.True(t, results["retry"].cached, "retry's saved writes are reused")
	require.False(t, results["bad"].cached)
	require.EqualValues(t, 3, fails.Load(), "retry did not run again")
}

// Mirrors LangGraph's output of cached writes on resume
// (PregelLoop._first/_output_writes(cached=True), test_pending_writes_resume
// streaming): a resumed step streams the update of the task that had
// finished before, marked cached, without running it.
func TestResumeStreamsCachedUpdates(t *testing.T) {
	t.Parallel()
	var cs calls
	var fail atomic.Bool
	fail.Store(true)
	g := graph.New(schema).
		AddNode("ok", cs.track("ok")).
		AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if fail.Load() {
				return state.Update[counter]{}, errors.New("down")
			}
			return state.Writes(trailField.Set([]string{"flaky"})), nil
		}).
		AddEdge(graph.Start, "ok").AddEdge(graph.Start, "flaky")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.Error(t, err)
	fail.Store(false)
	var updates []string
	cached, updCached := map[string]bool{}, map[string]bool{}
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Updates, graph.Tasks)) {
		require.NoError(t, err)
		switch ev.Mode {
		case graph.Updates:
			updates = append(updates, ev.Node)
			updCached[ev.Node] = ev.Cached
		case graph.Tasks:
			if ev.Task.Result {
				cached[ev.Node] = ev.Task.Cached
			}
		}
	}
	require.ElementsMatch(t, []string{"ok", "flaky"}, updates)
	require.Equal(t, map[string]bool{"ok": true, "flaky": false}, cached)
	require.Equal(t, map[string]bool{"ok": true, "flaky": false}, updCached, `the Updates event says so too ({"__metadata__": {"cached": True}})`)
	require.Equal(t, 1, cs.get("ok"))
}

// Mirrors test_get_stream_writer / stream_mode="custom": what a node
// emits arrives in order, tagged with the node and step, before the node's
// update; a subgraph's custom events come with its namespace when
// subgraphs are streamed, and not at all otherwise.
func TestEmittedEventsArriveInOrderBeforeTheUpdate(t *testing.T) {
	t.Parallel()
	emitter := func(name string) graph.NodeFunc[counter] {
		return func(ctx context.Context, s counter) (state.Update[counter], error) {
			graph.Emit(ctx, name+":1")
			graph.Emit(ctx, name+":2")
			return state.Writes(trailField.Set([]string{name})), nil
		}
	}
	inner := mustCompile(t, graph.New(schema).AddNode("x", emitter("x")).AddEdge(graph.Start, "x"))
	g := graph.New(schema).AddNode("a", emitter("a")).AddSubgraph("sub", inner).
		AddEdge(graph.Start, "a").AddEdge("a", "sub")
	c := mustCompile(t, g)
	for _, subgraphs := range []bool{false, true} {
		opts := []graph.RunOption{graph.StreamModes(graph.Custom, graph.Updates)}
		if subgraphs {
			opts = append(opts, graph.WithSubgraphs())
		}
		var got []string
		for ev, err := range c.Stream(t.Context(), zero, opts...) {
			require.NoError(t, err)
			switch ev.Mode {
			case graph.Custom:
				require.NotEmpty(t, ev.Node)
				tag := ""
				if ev.Namespace != "" {
					tag = "sub|"
				}
				got = append(got, fmt.Sprintf("%s%v@%s/%d", tag, ev.Custom, ev.Node, ev.Step))
			case graph.Updates:
				got = append(got, "update:"+ev.Node)
			}
		}
		want := []string{"a:1@a/1", "a:2@a/1", "update:a", "update:sub"}
		if subgraphs {
			want = []string{"a:1@a/1", "a:2@a/1", "update:a", "sub|x:1@x/1", "sub|x:2@x/1", "update:x", "update:sub"}
		}
		require.Equal(t, want, got, "subgraphs=%v", subgraphs)
	}
	// No Custom mode: Emit does nothing.
	for ev, err := range c.Stream(t.Context(), zero, graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		require.Equal(t, graph.Updates, ev.Mode)
	}
}

// A node that streams from several goroutines (parallel LLM calls, each
// with StreamingFunc) must not make Stream call the consumer concurrently.
// When the node is the step's only task its events go straight to yield
// from the emitting goroutine.
func TestInlineEmitFromGoroutinesIsSerialized(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).
		AddNode("fan", func(ctx context.Context, s counter) (state.Update[counter], error) {
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					for j := range 50 {
						graph.Emit(ctx, fmt.Sprintf("%d/%d", i, j))
					}
				})
			}
			wg.Wait()
			return state.Writes(lastField.Set("done")), nil
		}).
		AddEdge(graph.Start, "fan")
	var got []any // written by the consumer only: a race here is the runtime's
	for ev, err := range mustCompile(t, g).Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Custom)) {
		require.NoError(t, err)
		got = append(got, ev.Custom)
	}
	require.Len(t, got, 200)
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

// Mirrors test_doubly_nested_graph_state / stream(subgraphs=True) with
// stream_mode="updates": the updates of a subgraph's subgraph come tagged
// with the namespace path, each level's updates before the update of the
// task that ran it.
func TestStreamUpdatesOfNestedSubgraphsCarryTheirNamespace(t *testing.T) {
	t.Parallel()
	grand := mustCompile(t, graph.New(schema).AddNode("g1", visit("g1")).AddNode("g2", visit("g2")).
		AddEdge(graph.Start, "g1").AddEdge("g1", "g2"))
	child := mustCompile(t, graph.New(schema).AddNode("c1", visit("c1")).AddSubgraph("grand", grand).
		AddEdge(graph.Start, "c1").AddEdge("c1", "grand"))
	g := graph.New(schema).AddNode("p1", visit("p1")).AddSubgraph("child", child).AddNode("p2", visit("p2")).
		AddEdge(graph.Start, "p1").AddEdge("p1", "child").AddEdge("child", "p2")
	c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
	var got []string
	var nss []string
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Updates), graph.WithSubgraphs()) {
		require.NoError(t, err)
		got = append(got, ev.Node)
		nss = append(nss, ev.Namespace)
	}
	require.Equal(t, []string{"p1", "c1", "g1", "g2", "grand", "child", "p2"}, got)
	require.Empty(t, nss[0])
	require.Regexp(t, `^child:[^|]+$`, nss[1])
	require.Regexp(t, `^child:[^|]+\|grand:[^|]+$`, nss[2])
	require.Equal(t, nss[2], nss[3])
	require.True(t, strings.HasPrefix(nss[2], nss[1]+"|"))
	require.Equal(t, nss[1], nss[4])
	require.Empty(t, nss[5])
	require.Empty(t, nss[6])

	// Without WithSubgraphs only the parent's own updates.
	got = nil
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("t2"), graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		got = append(got, ev.Node)
	}
	require.Equal(t, []string{"p1", "child", "p2"}, got)
}

// Mirrors LangGraph's __interrupt__ update: a stream stopped by an
// interrupt ends with something that carries it in every mode — an
// Interrupts event when asked for, else an Updates event from
// graph.InterruptNode, else a Values event with the interrupts.
func TestStreamEndsWithTheInterruptInEveryMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		modes []graph.Mode
		want  graph.Mode
		node  string
	}{
		{"interrupts", []graph.Mode{graph.Updates, graph.Interrupts}, graph.Interrupts, ""},
		{"updates only", []graph.Mode{graph.Updates}, graph.Updates, graph.InterruptNode},
		{"values only", []graph.Mode{graph.Values}, graph.Values, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs calls
			g := graph.New(schema).AddNode("a", visit("a")).AddNode("ask", askNode(&cs, "ask")).
				AddEdge(graph.Start, "a").AddEdge("a", "ask")
			c := mustCompile(t, g, graph.WithCheckpointer(memory.New()))
			var last graph.Event[counter]
			for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(tc.modes...)) {
				require.NoError(t, err)
				last = ev
			}
			require.Equal(t, tc.want, last.Mode)
			require.Equal(t, tc.node, last.Node)
			require.Len(t, last.Interrupts, 1)
			require.Equal(t, "ask?", last.Interrupts[0].Value)
			require.Equal(t, 2, last.Interrupts[0].Step)
			if tc.want == graph.Values {
				require.Equal(t, []string{"a"}, last.State.Trail)
			}
		})
	}
}

func TestMessagesEventsCarryTheMessageIDTheNodeGave(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("talk", func(ctx context.Context, s counter) (state.Update[counter], error) {
		for _, part := range []struct{ id, text string }{{"m1", "hel"}, {"m2", "other"}, {"m1", "lo"}} {
			if err := graph.StreamingFunc(ctx, part.id)(ctx, []byte(part.text)); err != nil {
				return state.Update[counter]{}, err
			}
		}
		return state.Update[counter]{}, graph.StreamingFunc(ctx, "")(ctx, []byte("untagged"))
	}).AddEdge(graph.Start, "talk")
	c := mustCompile(t, g)
	byID := map[string]string{}
	for ev, err := range c.Stream(t.Context(), state.Update[counter]{}, graph.StreamModes(graph.Messages)) {
		require.NoError(t, err)
		require.Equal(t, "talk", ev.Node)
		byID[ev.MessageID] += string(ev.Chunk)
	}
	require.Equal(t, map[string]string{"m1": "hello", "m2": "other", "": "untagged"}, byID)
}
