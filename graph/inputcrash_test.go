package graph_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// errInjected is the failure faultSaver injects.
var errInjected = errors.New("injected write failure")

// faultSaver stands in for a process that dies at its n-th write: it
// counts Put and PutWrites calls, and from the failAt-th on (1-based)
// stores nothing and fails, as a process that died there stores nothing
// more. failAt 0 never fails (it only counts).
type faultSaver struct {
	inner  checkpoint.Saver
	failAt int

	mu     sync.Mutex
	writes int
}

func (s *faultSaver) write() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.failAt > 0 && s.writes >= s.failAt {
		return fmt.Errorf("write %d: %w", s.writes, errInjected)
	}
	return nil
}

func (s *faultSaver) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

func (s *faultSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if err := s.write(); err != nil {
		return checkpoint.Config{}, err
	}
	return s.inner.Put(ctx, req)
}

func (s *faultSaver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	if err := s.write(); err != nil {
		return err
	}
	return s.inner.PutWrites(ctx, cfg, taskID, ws)
}

func (s *faultSaver) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	return s.inner.Get(ctx, cfg)
}

func (s *faultSaver) List(ctx context.Context, cfg checkpoint.Config, o checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return s.inner.List(ctx, cfg, o)
}

func (s *faultSaver) DeleteThread(ctx context.Context, thread string) error {
	return s.inner.DeleteThread(ctx, thread)
}

// crashBackend opens a saver on one store; reopen opens the same store
// again, as a fresh process would (the earlier saver is closed first).
type crashBackend struct {
	name string
	open func(t *testing.T) (first checkpoint.Saver, reopen func() checkpoint.Saver)
}

func crashBackends() []crashBackend {
	return []crashBackend{
		{"memory", func(t *testing.T) (checkpoint.Saver, func() checkpoint.Saver) {
			s := memory.New()
			return s, func() checkpoint.Saver { return s }
		}},
		{"sqlite", func(t *testing.T) (checkpoint.Saver, func() checkpoint.Saver) {
			path := filepath.Join(t.TempDir(), "crash.db")
			open := func() *sqlite.Saver {
				s, err := sqlite.Open(path)
				require.NoError(t, err)
				t.Cleanup(func() { s.Close() })
				return s
			}
			first := open()
			return first, func() checkpoint.Saver {
				require.NoError(t, first.Close())
				return open()
			}
		}},
		{"postgres", func(t *testing.T) (checkpoint.Saver, func() checkpoint.Saver) {
			schemaName := pgtest.Schema(t)
			open := func() *postgres.Saver {
				s := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(schemaName))
				require.NoError(t, s.Migrate(context.Background()))
				return s
			}
			return open(), func() checkpoint.Saver { return open() }
		}},
	}
}

// diamondTwice is START → (a ‖ b) → c → (d ‖ e) → f, each node appending
// its name to the trail: the graph.
func diamondTwice(t *testing.T, saver checkpoint.Saver, d graph.Durability) *graph.Compiled[counter] {
	g := graph.New(schema)
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		g.AddNode(n, visit(n))
	}
	g.AddEdge(graph.Start, "a").AddEdge(graph.Start, "b").
		AddJoin([]string{"a", "b"}, "c").
		AddEdge("c", "d").AddEdge("c", "e").
		AddJoin([]string{"d", "e"}, "f")
	return mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(d))
}

// TestAFailedWriteNeverLosesTheInput fails the saver at each write of a
// run in turn (every later write failing too, as in a process that died
// there) and checks that a fresh process goes on to the uninterrupted
// run's result: the input is never lost. The input checkpoint holds the
// input itself, in one commit, as LangGraph's does in its __start__
// channel; before, the input was a second write, and a crash between the
// two left a thread that resumed without it (a b c d e f, no "in").
func TestAFailedWriteNeverLosesTheInput(t *testing.T) {
	t.Parallel()
	want := []string{"in", "a", "b", "c", "d", "e", "f"}
	input := state.Writes(trailField.Set([]string{"in"}))
	ctx := context.Background()
	for _, be := range crashBackends() {
		for _, d := range []graph.Durability{graph.DurabilitySync, graph.DurabilityAsync} {
			t.Run(be.name+"/"+d.String(), func(t *testing.T) {
				t.Parallel()
				// An uninterrupted run counts the writes.
				counting := &faultSaver{inner: memory.New()}
				out, err := diamondTwice(t, counting, d).Invoke(ctx, input, graph.WithThread("t"))
				require.NoError(t, err)
				require.Equal(t, want, out.Trail)
				total := counting.count()
				require.Greater(t, total, 2)
				for failAt := 1; failAt <= total; failAt++ {
					first, reopen := be.open(t)
					faulty := &faultSaver{inner: first, failAt: failAt}
					_, err := diamondTwice(t, faulty, d).Invoke(ctx, input, graph.WithThread("t"))
					require.ErrorIs(t, err, errInjected, "write %d of %d", failAt, total)

					fresh := diamondTwice(t, reopen(), d)
					_, err = fresh.State(ctx, graph.WithThread("t"))
					if errors.Is(err, checkpoint.ErrNotFound) {
						// Nothing stored: the caller saw the error and runs
						// the input again.
						out, err = fresh.Invoke(ctx, input, graph.WithThread("t"))
					} else {
						require.NoError(t, err, "write %d of %d", failAt, total)
						out, err = fresh.Invoke(ctx, state.Update[counter]{}, graph.WithThread("t"))
					}
					require.NoError(t, err, "write %d of %d", failAt, total)
					require.Equal(t, want, out.Trail, "failed at write %d of %d", failAt, total)
				}
			})
		}
	}
}
