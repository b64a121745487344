package graph_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// countingSaver counts the reads of the saver it wraps. It implements
// checkpoint.HeadGetter when heads is set (forwarding to the wrapped
// saver's GetHead); without, only checkpoint.Saver.
type countingSaver struct {
	checkpoint.Saver
	gets, heads atomic.Int64
}

func (s *countingSaver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	s.gets.Add(1)
	return s.Saver.Get(ctx, cfg)
}

type countingHeadSaver struct{ *countingSaver }

func (s countingHeadSaver) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	s.heads.Add(1)
	return s.Saver.(checkpoint.HeadGetter).GetHead(ctx, cfg)
}

// headGraph compiles a graph on saver in which "a" fans out to "b", which
// finishes, and "c", which interrupts (ask) or finishes: the latest
// checkpoint then has a finished task's pending writes, an interrupt and
// a task to run next, or is the end of the thread.
func headGraph(t *testing.T, saver checkpoint.Saver) *graph.Compiled[xyn] {
	t.Helper()
	g := graph.New(xynSchema)
	g.AddNode("a", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
		return state.Writes(xynX.Set([]string{"a"}), xynN.Set(s.N+1)), nil
	})
	g.AddNode("b", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
		return state.Writes(xynY.Set([]string{"b"})), nil
	})
	g.AddNode("c", func(ctx context.Context, s xyn) (state.Update[xyn], error) {
		if s.N%2 == 1 {
			v, err := graph.Interrupt[string](ctx, "c?")
			if err != nil {
				return state.Update[xyn]{}, err
			}
			return state.Writes(xynX.Set([]string{"c:" + v})), nil
		}
		return state.Writes(xynX.Set([]string{"c"})), nil
	})
	g.AddEdge(graph.Start, "a")
	g.AddEdge("a", "b")
	g.AddEdge("a", "c")
	g.AddEdge("b", graph.End)
	g.AddEdge("c", graph.End)
	c, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return c
}

// TestStateOfACachedHeadEqualsStateReadWhole pins State through
// checkpoint.HeadGetter on every backend: after a run, the process that
// ran it reads the latest state from the head and its state cache
// without a Get, and that snapshot equals the one a fresh process reads
// through Get (with no head read first) — an interrupted step (a finished task's writes applied, an
// interrupt pending, a task next), a finished thread, and a pinned
// checkpoint.
func TestStateOfACachedHeadEqualsStateReadWhole(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, ok := saver.(checkpoint.HeadGetter)
			require.True(t, ok, "%T implements checkpoint.HeadGetter", saver)
			ctx := context.Background()
			counted := &countingSaver{Saver: saver}
			ran := headGraph(t, countingHeadSaver{counted})
			fresh := &countingSaver{Saver: saver}
			whole := headGraph(t, countingHeadSaver{fresh}) // a fresh process: nothing cached
			cases := []struct {
				thread string
				input  int
				next   []string
			}{
				{"interrupted", 0, []string{"c"}},
				{"finished", 1, nil},
			}
			for _, c := range cases {
				_, err := ran.Invoke(ctx, state.Writes(xynN.Set(c.input)), graph.WithThread(c.thread))
				if c.next != nil {
					require.True(t, errors.Is(err, graph.ErrInterrupted), "%s: %v", c.thread, err)
				} else {
					require.NoError(t, err, c.thread)
				}
				gets, heads := counted.gets.Load(), counted.heads.Load()
				got, err := ran.State(ctx, graph.WithThread(c.thread))
				require.NoError(t, err, c.thread)
				require.Equal(t, gets, counted.gets.Load(), "%s: State of a cached head reads no values", c.thread)
				require.Equal(t, heads+1, counted.heads.Load(), "%s: State reads the head", c.thread)

				freshGets := fresh.gets.Load()
				want, err := whole.State(ctx, graph.WithThread(c.thread))
				require.NoError(t, err, c.thread)
				require.Equal(t, freshGets+1, fresh.gets.Load(), "%s: a process that holds nothing of the thread reads it with Get", c.thread)
				require.Zero(t, fresh.heads.Load(), "%s: and reads no head before", c.thread)
				require.Equal(t, want, got, c.thread)
				require.Equal(t, c.next, got.Next, c.thread)
				if c.next != nil {
					require.Len(t, got.Interrupts, 1, c.thread)
					require.Equal(t, []string{"b"}, got.Values.Y, "%s: b's pending writes are applied", c.thread)
				}

				// A pinned checkpoint, not the cached one: read whole.
				require.NotNil(t, got.Parent, c.thread)
				gets = counted.gets.Load()
				pinned, err := ran.State(ctx, graph.WithThread(c.thread), graph.WithCheckpoint(got.Parent.CheckpointID))
				require.NoError(t, err, c.thread)
				require.Equal(t, gets+1, counted.gets.Load(), "%s: an uncached checkpoint is read with Get", c.thread)
				wantPinned, err := whole.State(ctx, graph.WithThread(c.thread), graph.WithCheckpoint(got.Parent.CheckpointID))
				require.NoError(t, err, c.thread)
				require.Equal(t, wantPinned, pinned, c.thread)
			}
		})
	}
}

// TestStateWithoutHeadGetterReadsWithGet pins the fallback: a saver that
// does not implement checkpoint.HeadGetter is read with one Get.
func TestStateWithoutHeadGetterReadsWithGet(t *testing.T) {
	t.Parallel()
	for name, saver := range storedSavers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			counted := &countingSaver{Saver: saver}
			c := headGraph(t, counted)
			_, err := c.Invoke(ctx, state.Writes(xynN.Set(0)), graph.WithThread("t"))
			require.True(t, errors.Is(err, graph.ErrInterrupted), "%v", err)
			gets := counted.gets.Load()
			snap, err := c.State(ctx, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, gets+1, counted.gets.Load())
			require.Equal(t, []string{"c"}, snap.Next)
		})
	}
}
