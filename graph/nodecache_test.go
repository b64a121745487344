package graph_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	storemem "github.com/stategraph/stategraph/store/memory"

	"github.com/stategraph/stategraph/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// doubling is a graph whose one node, "double", doubles N and is cached
// under the policy.
func doubling(t *testing.T, calls *atomic.Int64, p graph.CachePolicy[counter], opts ...graph.CompileOption) *graph.Compiled[counter] {
	g := graph.New(schema).
		AddNode("double", counted(calls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(2 * s.N)), nil
		}), graph.WithCache(p)).
		AddEdge(graph.Start, "double")
	return mustCompile(t, g, opts...)
}

func TestCachedNodeIsNotRunAgainWithinItsTTLAndIsAfter(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	var calls atomic.Int64
	c := doubling(t, &calls, graph.CachePolicy[counter]{TTL: time.Minute}, graph.WithNodeCache(graph.NewMemoryCache(clock.Now)))
	run := func(n int) int {
		out, err := c.Invoke(t.Context(), state.Writes(nField.Set(n)))
		require.NoError(t, err)
		return out.N
	}
	require.Equal(t, 6, run(3))
	require.EqualValues(t, 1, calls.Load())

	clock.Advance(59 * time.Second)
	require.Equal(t, 6, run(3), "within the TTL: the writes come from the cache")
	require.EqualValues(t, 1, calls.Load())

	require.Equal(t, 8, run(4), "another input is another key")
	require.EqualValues(t, 2, calls.Load())

	clock.Advance(time.Second)
	require.Equal(t, 6, run(3), "after the TTL the node runs again")
	require.EqualValues(t, 3, calls.Load())
	require.Equal(t, 6, run(3), "and its new result is cached")
	require.EqualValues(t, 3, calls.Load())
}

func TestCacheKeyFunctionDecidesWhatInputsShareAResult(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	byN := graph.CachePolicy[counter]{Key: func(s counter) string { return string(rune('0' + s.N)) }}
	c := doubling(t, &calls, byN, graph.WithNodeCache(graph.NewMemoryCache(nil)))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(2), lastField.Set("a")))
	require.NoError(t, err)
	out, err := c.Invoke(t.Context(), state.Writes(nField.Set(2), lastField.Set("b")))
	require.NoError(t, err)
	assert.Equal(t, 4, out.N)
	assert.EqualValues(t, 1, calls.Load(), "Last is not part of the key")

	// Without a key function the whole input is the key.
	var all atomic.Int64
	c = doubling(t, &all, graph.CachePolicy[counter]{}, graph.WithNodeCache(graph.NewMemoryCache(nil)))
	for _, last := range []string{"a", "b", "a"} {
		_, err := c.Invoke(t.Context(), state.Writes(nField.Set(2), lastField.Set(last)))
		require.NoError(t, err)
	}
	assert.EqualValues(t, 2, all.Load())
}

func TestCachedSendTasksAreKeyedByTheirOwnArgument(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	cache := graph.NewMemoryCache(nil)
	build := func(items ...string) *graph.Compiled[counter] {
		g := graph.New(schema).
			AddNode("fan", visit("fan")).
			AddNode("work", counted(&calls, func(ctx context.Context, s counter) (state.Update[counter], error) {
				return state.Writes(itemsField.Set([]string{s.Last + "!"})), nil
			}), graph.WithCache(graph.CachePolicy[counter]{})).
			AddEdge(graph.Start, "fan").
			AddConditionalEdges("fan", graph.FanOut(func(ctx context.Context, s counter) ([]graph.Send[counter], error) {
				var out []graph.Send[counter]
				for _, it := range items {
					out = append(out, graph.SendTo("work", counter{Last: it}))
				}
				return out, nil
			}), "work")
		return mustCompile(t, g, graph.WithNodeCache(cache), graph.WithCheckpointer(memory.New()))
	}
	_, err := build("a", "b").Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	require.EqualValues(t, 2, calls.Load())

	c := build("a", "b", "c")
	// Task results stream as the tasks finish, in no set order (the cached
	// ones at once, c when it ran): each is told by its Send's position.
	fromCache := map[int]bool{}
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("t"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Node == "work" && ev.Task.Result {
			require.NotContains(t, fromCache, ev.Task.Send, "one result per Send")
			fromCache[ev.Task.Send] = ev.Task.FromCache
		}
	}
	require.EqualValues(t, 3, calls.Load(), "only c ran")
	assert.Equal(t, map[int]bool{0: true, 1: true, 2: false}, fromCache)
	out := latestState(t, c, "t")
	assert.Equal(t, []string{"a!", "b!", "c!"}, out.Values.Items)
}

// taskEnds is an Observer that records each task's TaskEnd.
type taskEnds struct {
	mu   sync.Mutex
	ends map[string][]graph.TaskEnd
}

func (o *taskEnds) StartRun(ctx context.Context, _ graph.RunStart) (context.Context, func(graph.RunEnd)) {
	return ctx, func(graph.RunEnd) {}
}

func (o *taskEnds) StartStep(ctx context.Context, _ graph.StepStart) (context.Context, func(graph.StepEnd)) {
	return ctx, func(graph.StepEnd) {}
}

func (o *taskEnds) StartTask(ctx context.Context, in graph.Info) (context.Context, func(graph.TaskEnd)) {
	return ctx, func(e graph.TaskEnd) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.ends[in.Node] = append(o.ends[in.Node], e)
	}
}

func (o *taskEnds) StartSave(ctx context.Context, _ graph.SaveStart) (context.Context, func(graph.SaveEnd)) {
	return ctx, func(graph.SaveEnd) {}
}

func TestCacheHitIsMarkedInTheStreamTheHistoryAndToTheObserver(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	obs := &taskEnds{ends: map[string][]graph.TaskEnd{}}
	c := doubling(t, &calls, graph.CachePolicy[counter]{}, graph.WithNodeCache(graph.NewMemoryCache(nil)),
		graph.WithCheckpointer(memory.New()), graph.WithObserver(obs))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(5)), graph.WithThread("a"))
	require.NoError(t, err)

	var updates []graph.Event[counter]
	for ev, err := range c.Stream(t.Context(), state.Writes(nField.Set(5)), graph.WithThread("b"), graph.StreamModes(graph.Updates)) {
		require.NoError(t, err)
		updates = append(updates, ev)
	}
	require.Len(t, updates, 1)
	assert.True(t, updates[0].Cached)
	assert.Equal(t, 10, updates[0].Update.Writes[0].Value())
	require.EqualValues(t, 1, calls.Load())

	// History: the checkpoint before the step shows its task done, from
	// the cache; on thread a it ran.
	for thread, want := range map[string]bool{"a": false, "b": true} {
		h := history(t, c, thread)
		require.Len(t, h[1].Tasks, 1)
		assert.Equal(t, "double", h[1].Tasks[0].Node)
		assert.Equal(t, want, h[1].Tasks[0].FromCache, thread)
		assert.Equal(t, want, h[1].Tasks[0].Done, thread)
		assert.Equal(t, map[string]any{"n": 10}, h[1].Tasks[0].Result)
	}

	obs.mu.Lock()
	defer obs.mu.Unlock()
	require.Len(t, obs.ends["double"], 2)
	assert.Equal(t, graph.TaskEnd{Attempts: 1, Writes: 1}, obs.ends["double"][0])
	assert.Equal(t, graph.TaskEnd{Writes: 1, FromCache: true}, obs.ends["double"][1])
}

// A cached task beside a sibling that fails: the resumed step keeps the
// cached task's saved writes (it neither runs nor reads the cache again)
// and still shows them as taken from the cache.
func TestCacheHitBesideAFailedSiblingIsRestoredOnResume(t *testing.T) {
	t.Parallel()
	var calls, flaky atomic.Int64
	cache := graph.NewMemoryCache(nil)
	g := graph.New(schema).
		AddNode("double", counted(&calls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			return state.Writes(nField.Set(2 * s.N)), nil
		}), graph.WithCache(graph.CachePolicy[counter]{})).
		AddNode("flaky", func(ctx context.Context, s counter) (state.Update[counter], error) {
			if flaky.Add(1) == 2 {
				return zero, errors.New("boom")
			}
			return state.Writes(lastField.Set("ok")), nil
		}).
		AddEdge(graph.Start, "double").AddEdge(graph.Start, "flaky")
	c := mustCompile(t, g, graph.WithNodeCache(cache), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("a"))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("b"))
	require.ErrorContains(t, err, "boom")
	snap := latestState(t, c, "b")
	require.Len(t, snap.Tasks, 2)
	assert.True(t, snap.Tasks[0].Done)
	assert.True(t, snap.Tasks[0].FromCache)

	var restored *graph.TaskEvent
	for ev, err := range c.Stream(t.Context(), zero, graph.WithThread("b"), graph.StreamModes(graph.Tasks)) {
		require.NoError(t, err)
		if ev.Node == "double" && ev.Task.Result {
			restored = ev.Task
		}
	}
	require.NotNil(t, restored)
	assert.True(t, restored.Cached, "restored from the saved writes")
	assert.True(t, restored.FromCache)
	assert.EqualValues(t, 1, calls.Load())
	assert.Equal(t, 2, latestState(t, c, "b").Values.N)
}

// A node that interrupts stores nothing until it finishes; once answered,
// its result is cached, and a later task with the same input takes it
// without interrupting (as LangGraph's cache does).
func TestInterruptedCachedNodeIsCachedOnceItFinishes(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	g := graph.New(schema).
		AddNode("ask", counted(&calls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "name?")
			if err != nil {
				return zero, err
			}
			return state.Writes(lastField.Set(v)), nil
		}), graph.WithCache(graph.CachePolicy[counter]{})).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithNodeCache(graph.NewMemoryCache(nil)), graph.WithCheckpointer(memory.New()))
	_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("a"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("a"), graph.Resume("ann"))
	require.NoError(t, err)
	require.Equal(t, "ann", out.Last)
	require.EqualValues(t, 2, calls.Load())

	out, err = c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread("b"))
	require.NoError(t, err, "the cached answer: no interrupt")
	assert.Equal(t, "ann", out.Last)
	assert.EqualValues(t, 2, calls.Load())
}

func TestStoreCacheExpiresByTheStoresClock(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s, err := storemem.New(store.WithClock(clock.Now))
	require.NoError(t, err)
	var calls atomic.Int64
	c := doubling(t, &calls, graph.CachePolicy[counter]{TTL: time.Hour}, graph.WithNodeCache(graph.NewStoreCache(s, "cache", "nodes")))
	for range 2 {
		out, err := c.Invoke(t.Context(), state.Writes(nField.Set(21)))
		require.NoError(t, err)
		require.Equal(t, 42, out.N)
	}
	require.EqualValues(t, 1, calls.Load())
	items, err := s.Search(t.Context(), []string{"cache", "nodes"}, store.SearchOptions{})
	require.NoError(t, err)
	require.Len(t, items, 1)

	clock.Advance(time.Hour)
	_, err = c.Invoke(t.Context(), state.Writes(nField.Set(21)))
	require.NoError(t, err)
	require.EqualValues(t, 2, calls.Load())
}

func TestCachePolicyNeedsANodeCacheAndTheGraphsState(t *testing.T) {
	t.Parallel()
	g := graph.New(schema).AddNode("n", visit("n"), graph.WithCache(graph.CachePolicy[counter]{})).AddEdge(graph.Start, "n")
	_, err := g.Compile()
	require.ErrorIs(t, err, graph.ErrInvalidGraph)
	require.ErrorContains(t, err, `node "n" has a cache policy`)

	g = graph.New(schema).AddNode("n", visit("n"), graph.WithCache(graph.CachePolicy[shaped]{})).AddEdge(graph.Start, "n")
	_, err = g.Compile(graph.WithNodeCache(graph.NewMemoryCache(nil)))
	require.ErrorContains(t, err, `node "n": the cache policy is a *graph.CachePolicy[github.com/stategraph/stategraph/graph_test.shaped]`)
}

func TestAResumeAnswerWinsOverACachedOne(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	g := graph.New(schema).
		AddNode("ask", counted(&calls, func(ctx context.Context, s counter) (state.Update[counter], error) {
			v, err := graph.Interrupt[string](ctx, "approve?")
			if err != nil {
				return zero, err
			}
			return state.Writes(lastField.Set(v)), nil
		}), graph.WithCache(graph.CachePolicy[counter]{})).
		AddEdge(graph.Start, "ask")
	c := mustCompile(t, g, graph.WithNodeCache(graph.NewMemoryCache(nil)), graph.WithCheckpointer(memory.New()))
	for _, th := range []string{"a", "b"} {
		_, err := c.Invoke(t.Context(), state.Writes(nField.Set(1)), graph.WithThread(th))
		require.ErrorIs(t, err, graph.ErrInterrupted)
	}
	out, err := c.Invoke(t.Context(), zero, graph.WithThread("b"), graph.Resume("approve"))
	require.NoError(t, err)
	require.Equal(t, "approve", out.Last)
	out, err = c.Invoke(t.Context(), zero, graph.WithThread("a"), graph.Resume("reject"))
	require.NoError(t, err)
	assert.Equal(t, "reject", out.Last, "thread a's own answer, not thread b's cached one")
}

// failingCache is a Cache whose every call fails.
type failingCache struct{ gets, sets atomic.Int64 }

func (f *failingCache) Get(context.Context, string) ([]byte, bool, error) {
	f.gets.Add(1)
	return nil, false, errors.New("cache down")
}

func (f *failingCache) Set(context.Context, string, []byte, time.Duration) error {
	f.sets.Add(1)
	return errors.New("cache down")
}

func TestACacheThatFailsIsAMissNotAFailure(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	fc := &failingCache{}
	c := doubling(t, &calls, graph.CachePolicy[counter]{TTL: time.Minute}, graph.WithNodeCache(fc))
	for range 2 {
		out, err := c.Invoke(t.Context(), state.Writes(nField.Set(3)))
		require.NoError(t, err)
		assert.Equal(t, 6, out.N)
	}
	assert.EqualValues(t, 2, calls.Load(), "each call runs the node")
	assert.EqualValues(t, 2, fc.gets.Load())
	assert.EqualValues(t, 2, fc.sets.Load())
}

func TestMemoryCacheSweepsExpiredEntries(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := graph.NewMemoryCache(clock.Now)
	ctx := t.Context()
	for i := range 200 {
		require.NoError(t, m.Set(ctx, "old"+strconv.Itoa(i), []byte("v"), time.Minute))
	}
	require.NoError(t, m.Set(ctx, "forever", []byte("v"), 0))
	clock.Advance(time.Hour)
	for i := range 100 {
		require.NoError(t, m.Set(ctx, "new"+strconv.Itoa(i), []byte("v"), time.Minute))
	}
	assert.Less(t, m.Len(), 200, "the expired entries went at the sweep")
	_, ok, err := m.Get(ctx, "forever")
	require.NoError(t, err)
	assert.True(t, ok)
	_, ok, _ = m.Get(ctx, "new99")
	assert.True(t, ok)
}
