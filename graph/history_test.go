package graph_test

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// listSpy is a saver whose List records, per checkpoint listed, the
// fields whose values it returned (what the saver was asked to read)
// and those SkipValue skipped. With ignoreSkip it drops SkipValue, as a
// saver that does not know it does; damage, when set, changes a tuple
// before History sees it.
type listSpy struct {
	checkpoint.Saver
	ignoreSkip bool
	damage     func(*checkpoint.Tuple)

	mu      sync.Mutex
	read    map[string][]string // checkpoint id → fields read
	skipped map[string][]string // checkpoint id → fields skipped
	ns      []string            // namespaces listed
}

func newListSpy(s checkpoint.Saver) *listSpy {
	return &listSpy{Saver: s, read: map[string][]string{}, skipped: map[string][]string{}}
}

func (s *listSpy) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	s.mu.Lock()
	s.ns = append(s.ns, cfg.Namespace)
	s.mu.Unlock()
	if s.ignoreSkip {
		opts.SkipValue = nil
	} else if skip := opts.SkipValue; skip != nil {
		opts.SkipValue = func(t *checkpoint.Tuple, ch string) bool {
			ok := skip(t, ch)
			if ok {
				s.mu.Lock()
				s.skipped[t.Checkpoint.ID] = append(s.skipped[t.Checkpoint.ID], ch)
				s.mu.Unlock()
			}
			return ok
		}
	}
	return func(yield func(*checkpoint.Tuple, error) bool) {
		for tup, err := range s.Saver.List(ctx, cfg, opts) {
			if tup != nil {
				s.mu.Lock()
				for ch := range tup.Checkpoint.Values {
					if !checkpoint.IsReserved(ch) {
						s.read[tup.Checkpoint.ID] = append(s.read[tup.Checkpoint.ID], ch)
					}
				}
				s.mu.Unlock()
				if s.damage != nil {
					s.damage(tup)
				}
			}
			if !yield(tup, err) {
				return
			}
		}
	}
}

// totals returns how many field values were read and skipped in all.
func (s *listSpy) totals() (read, skipped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.read {
		read += len(r)
	}
	for _, k := range s.skipped {
		skipped += len(k)
	}
	return read, skipped
}

// mixedGraph loops "tick" steps times; its fields change at different
// steps: n at every step, last every third, items grows at even steps,
// total at the fourth, and trail is overwritten at the fifth (so the
// checkpoint before holds a value the newer one does not extend).
func mixedGraph(t *testing.T, saver checkpoint.Saver, steps int) *graph.Compiled[counter] {
	t.Helper()
	g := graph.New(schema).
		AddNode("tick", func(ctx context.Context, s counter) (state.Update[counter], error) {
			k := s.N + 1
			ws := []state.Write[counter]{nField.Set(k), trailField.Set([]string{"t" + strconv.Itoa(k)})}
			if k%3 == 0 {
				ws = append(ws, lastField.Set("at "+strconv.Itoa(k)))
			}
			if k%2 == 0 {
				ws = append(ws, itemsField.Set([]string{"i" + strconv.Itoa(k)}))
			}
			if k == 4 {
				ws = append(ws, totalField.Set(40))
			}
			if k == 5 {
				ws = append(ws, trailField.Overwrite([]string{"reset"}))
			}
			return state.Writes(ws...), nil
		}).
		AddEdge(graph.Start, "tick").
		AddConditionalEdges("tick", graph.Choose(func(ctx context.Context, s counter) (string, error) {
			if s.N < steps {
				return "tick", nil
			}
			return graph.End, nil
		}), "tick", graph.End)
	return mustCompile(t, g, graph.WithCheckpointer(saver))
}

// requireHistoryAsPinned reads c's History of thread with opts and
// requires each snapshot to be the one State pinned to its checkpoint
// returns (which decodes every field), with the same ids as want.
func requireHistoryAsPinned(t *testing.T, c *graph.Compiled[counter], thread string, want []string, opts ...graph.HistoryOption) []*graph.Snapshot[counter] {
	t.Helper()
	var got []*graph.Snapshot[counter]
	for s, err := range c.History(t.Context(), append([]graph.HistoryOption{graph.WithThread(thread)}, opts...)...) {
		require.NoError(t, err)
		got = append(got, s)
	}
	var ids []string
	for _, s := range got {
		ids = append(ids, s.Config.CheckpointID)
		pinned, err := c.State(t.Context(), graph.WithThread(thread), graph.WithCheckpoint(s.Config.CheckpointID))
		require.NoError(t, err)
		require.Equal(t, pinned.Values, s.Values, "checkpoint %s (step %d)", s.Config.CheckpointID, s.Metadata.Step)
		require.Equal(t, pinned.Next, s.Next, "checkpoint %s", s.Config.CheckpointID)
	}
	require.Equal(t, want, ids)
	return got
}

// historyIDs returns the ids of the thread's checkpoints, newest first,
// as the saver lists them.
func historyIDs(t *testing.T, s checkpoint.Saver, thread string, opts checkpoint.ListOptions) []string {
	t.Helper()
	var ids []string
	for tup, err := range s.List(t.Context(), checkpoint.Config{ThreadID: thread}, opts) {
		require.NoError(t, err)
		ids = append(ids, tup.Checkpoint.ID)
	}
	return ids
}

func TestHistorySkipsOnlyFieldsItRebuildsFromTheNewerSnapshot(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	spy := newListSpy(mem)
	c := mixedGraph(t, spy, 9)
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	all := historyIDs(t, mem, "t", checkpoint.ListOptions{})
	snaps := requireHistoryAsPinned(t, c, "t", all)

	_, skipped := spy.totals()
	require.Positive(t, skipped)
	require.Empty(t, spy.read[snaps[0].Config.CheckpointID], "the newest, which this process saved, comes from the state cache")
	// The newest reads every field; an older one only those its child
	// changed other than by appending to them.
	for i, s := range snaps[1:] {
		child := snaps[i]
		require.Equal(t, child.Parent.CheckpointID, s.Config.CheckpointID)
		for _, f := range spy.skipped[s.Config.CheckpointID] {
			require.NotEqual(t, "n", f, "n changes at every step: checkpoint %d", s.Metadata.Step)
		}
		if child.Metadata.Step == 5 {
			require.Contains(t, spy.read[s.Config.CheckpointID], "trail", "trail was overwritten after step 4: its value must be read")
		}
		if child.Metadata.Step > 0 && child.Metadata.Step%3 != 0 && s.Metadata.Step >= 3 {
			require.Contains(t, spy.skipped[s.Config.CheckpointID], "last", "last did not change at step %d", child.Metadata.Step)
		}
	}
}

func TestHistoryWithASaverThatIgnoresSkipValue(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	_, err := mixedGraph(t, mem, 9).Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	spy := newListSpy(mem)
	spy.ignoreSkip = true
	c := mixedGraph(t, spy, 9) // a process holding nothing of the thread
	requireHistoryAsPinned(t, c, "t", historyIDs(t, mem, "t", checkpoint.ListOptions{}))
	_, skipped := spy.totals()
	require.Zero(t, skipped)
}

func TestHistoryDoesNotRebuildAcrossAGap(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	spy := newListSpy(mem)
	c := mixedGraph(t, spy, 6)
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	// A second run on top: its input checkpoint sits between the two
	// runs' loop checkpoints, and the filter below drops it.
	_, err = c.Invoke(t.Context(), state.Writes(lastField.Set("again")), graph.WithThread("t"), graph.WithRecursionLimit(50))
	require.NoError(t, err)
	all := historyIDs(t, mem, "t", checkpoint.ListOptions{})
	cases := []struct {
		name string
		opts []graph.HistoryOption
		lo   checkpoint.ListOptions
	}{
		{"all", nil, checkpoint.ListOptions{}},
		{"loop only", []graph.HistoryOption{graph.WithFilter(map[string]any{"source": "loop"})}, checkpoint.ListOptions{Filter: map[string]any{"source": "loop"}}},
		{"before", []graph.HistoryOption{graph.WithBefore(all[3])}, checkpoint.ListOptions{Before: all[3]}},
		{"limit", []graph.HistoryOption{graph.WithLimit(4)}, checkpoint.ListOptions{Limit: 4}},
		{"step", []graph.HistoryOption{graph.WithFilter(map[string]any{"step": 3})}, checkpoint.ListOptions{Filter: map[string]any{"step": 3}}},
	}
	for _, tc := range cases {
		spy.mu.Lock()
		spy.read, spy.skipped = map[string][]string{}, map[string][]string{}
		spy.mu.Unlock()
		snaps := requireHistoryAsPinned(t, c, "t", historyIDs(t, mem, "t", tc.lo), tc.opts...)
		for i, s := range snaps {
			if s.Config.CheckpointID == all[0] {
				continue // the head, from the state cache
			}
			if i == 0 || snaps[i-1].Parent == nil || snaps[i-1].Parent.CheckpointID != s.Config.CheckpointID {
				require.Empty(t, spy.skipped[s.Config.CheckpointID], "%s: checkpoint %d follows a gap: nothing to rebuild it from", tc.name, i)
			}
		}
	}
}

func TestHistoryOfAGraphWithASubgraph(t *testing.T) {
	t.Parallel()
	inner := mustCompile(t, graph.New(schema).
		AddNode("x", visit("x")).AddNode("y", visit("y")).
		AddEdge(graph.Start, "x").AddEdge("x", "y"))
	mem := memory.New()
	spy := newListSpy(mem)
	g := graph.New(schema).
		AddNode("before", visit("before")).AddSubgraph("sub", inner).AddNode("after", visit("after")).
		AddEdge(graph.Start, "before").AddEdge("before", "sub").AddEdge("sub", "after")
	c := mustCompile(t, g, graph.WithCheckpointer(spy))
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	snaps := requireHistoryAsPinned(t, c, "t", historyIDs(t, mem, "t", checkpoint.ListOptions{}))
	require.Equal(t, []string{"before", "x", "y", "after"}, snaps[0].Values.Trail)
	require.Equal(t, []string{""}, spy.ns, "History lists the root namespace only")
	_, skipped := spy.totals()
	require.Positive(t, skipped)
}

func TestHistoryFieldSkippedButNotRebuildableIsCorrupt(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	_, err := mixedGraph(t, mem, 6).Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	ids := historyIDs(t, mem, "t", checkpoint.ListOptions{})
	cases := []struct {
		name, checkpoint, field string
		damage                  func(*checkpoint.Tuple)
	}{
		{
			// The newest's items are shorter than its parent's: the
			// parent's, skipped as a prefix of them, cannot be rebuilt.
			name: "prefix longer than the newer value", checkpoint: ids[1], field: "items",
			damage: func(tup *checkpoint.Tuple) {
				if tup.Checkpoint.ID == ids[0] {
					tup.Checkpoint.Values["items"] = checkpoint.Value{Version: tup.Checkpoint.Versions["items"], Snapshot: []byte(`[]`)}
				}
			},
		},
		{
			// A saver that leaves out a value it was not told to skip.
			name: "value left out", checkpoint: ids[0], field: "n",
			damage: func(tup *checkpoint.Tuple) {
				if tup.Checkpoint.ID == ids[0] {
					delete(tup.Checkpoint.Values, "n")
				}
			},
		},
	}
	for _, tc := range cases {
		spy := newListSpy(mem)
		spy.damage = tc.damage
		c := mixedGraph(t, spy, 6) // nothing cached: the values are read
		var err error
		for _, e := range c.History(t.Context(), graph.WithThread("t")) {
			if e != nil {
				err = e
				break
			}
		}
		require.ErrorIs(t, err, checkpoint.ErrCorrupt, tc.name)
		for _, part := range []string{`"t"`, tc.checkpoint, strconv.Quote(tc.field)} {
			require.Contains(t, err.Error(), part, tc.name)
		}
		require.False(t, errors.Is(err, checkpoint.ErrNotFound))
	}
}

func TestHistoryTakesTheHeadFromTheStateCache(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	spy := newListSpy(mem)
	c := mixedGraph(t, spy, 6)
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	ids := historyIDs(t, mem, "t", checkpoint.ListOptions{})
	requireHistoryAsPinned(t, c, "t", ids)
	require.Empty(t, spy.read[ids[0]], "the process that saved the head holds its state")
	require.ElementsMatch(t, []string{"n", "trail", "last", "items", "total"}, spy.skipped[ids[0]])

	other := newListSpy(mem)
	fresh := mixedGraph(t, other, 6) // another process: nothing cached
	requireHistoryAsPinned(t, fresh, "t", ids)
	require.ElementsMatch(t, []string{"n", "trail", "last", "items", "total"}, other.read[ids[0]])
	require.Empty(t, other.skipped[ids[0]])
}

// TestHistoryIsNotChangedByACallerChangingItsSnapshots: the older
// checkpoints are rebuilt from the newer snapshot History yielded, and a
// caller that cuts or reassigns that snapshot's fields in the loop (its
// own, as far as it knows) still gets every older one as stored.
func TestHistoryIsNotChangedByACallerChangingItsSnapshots(t *testing.T) {
	t.Parallel()
	mem := memory.New()
	c := mixedGraph(t, mem, 9)
	_, err := c.Invoke(t.Context(), zero, graph.WithThread("t"))
	require.NoError(t, err)
	var want []counter
	for s, err := range mixedGraph(t, mem, 9).History(t.Context(), graph.WithThread("t")) {
		require.NoError(t, err)
		want = append(want, s.Values)
	}
	for _, ignore := range []bool{false, true} {
		spy := newListSpy(mem)
		spy.ignoreSkip = ignore
		var got []counter
		for s, err := range mixedGraph(t, spy, 9).History(t.Context(), graph.WithThread("t")) {
			require.NoError(t, err, "saver ignores SkipValue: %v", ignore)
			got = append(got, s.Values)
			s.Values.Items = s.Values.Items[:0]
			s.Values.Trail = nil
			s.Values.N = -1
		}
		require.Equal(t, want, got, "saver ignores SkipValue: %v", ignore)
	}
}
