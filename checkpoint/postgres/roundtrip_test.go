package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// roundTrips counts the round trips of a pool: each query, each batch
// (sent as one) and each statement prepared, with the statements seen by
// their first words.
type roundTrips struct {
	n     atomic.Int64
	mu    sync.Mutex
	stmts map[string]int
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.add("batch")
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (r *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	r.add("prepare " + d.SQL)
	return ctx
}
func (r *roundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

func (r *roundTrips) add(sql string) {
	r.n.Add(1)
	f := strings.Fields(sql)
	key := strings.Join(f[:min(len(f), 4)], " ")
	r.mu.Lock()
	r.stmts[key]++
	r.mu.Unlock()
}

// take returns the round trips counted since the last take, and the
// statements.
func (r *roundTrips) take() (int64, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = map[string]int{}
	return r.n.Swap(0), out
}

// tracedSaver returns a migrated Saver on a pool whose round trips rt
// counts.
func tracedSaver(t *testing.T) (*postgres.Saver, *roundTrips) {
	t.Helper()
	rt := &roundTrips{stmts: map[string]int{}}
	pool := newPool(t, func(cfg *pgxpool.Config) { cfg.ConnConfig.Tracer = rt })
	s := postgres.New(pool, postgres.WithSchema(newSchema(t)))
	require.NoError(t, s.Migrate(context.Background()))
	rt.take()
	return s, rt
}

// TestPutAndPutWritesAreOneRoundTripEach: once its statement is prepared,
// a Put (checkpoint, blobs and the compare-and-set of the head) is one
// round trip, and so is a PutWrites.
func TestPutAndPutWritesAreOneRoundTripEach(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, rt := tracedSaver(t)
	thread := newThread()
	head := ""
	versions := map[string]string{}
	for i := range 5 {
		v := fmt.Sprint(i + 1)
		req := putReq(thread, head, versions, map[string]checkpoint.Blob{
			"a": {Version: v, Data: []byte(v)}, "b": {Version: v, Data: []byte(v)},
		})
		rt.take()
		_, err := s.Put(ctx, req)
		require.NoError(t, err)
		n, stmts := rt.take()
		if i > 1 { // the first two prepare their statements (a first checkpoint, a next one)
			require.EqualValues(t, 1, n, "round trips of Put %d: %v", i, stmts)
		}
		head, versions = req.Checkpoint.ID, req.Checkpoint.Versions

		cfg := checkpoint.Config{ThreadID: thread, CheckpointID: head}
		require.NoError(t, s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Index: 0, Channel: "a", Value: []byte(`1`)}}))
		n, stmts = rt.take()
		if i > 0 {
			require.EqualValues(t, 1, n, "round trips of PutWrites %d: %v", i, stmts)
		}
	}
}

// TestRuntimeStepIsOneRoundTripInEveryDurability: a step of a chain with
// one task costs one round trip under DurabilitySync and DurabilityAsync
// (its checkpoint, which records the task's writes), and none under
// DurabilityExit (the run stores its last checkpoint when it ends). The
// per-step figure is the difference between runs of 20 and of 10 steps,
// so what a run costs besides its steps (its lease, the input) cancels
// out.
func TestRuntimeStepIsOneRoundTripInEveryDurability(t *testing.T) {
	t.Parallel()
	type counter struct{ N int }
	n := state.Value("n", func(s *counter) *int { return &s.N })
	schema := state.NewSchema(n)
	chain := func(t *testing.T, steps int, s checkpoint.Saver, d graph.Durability) *graph.Compiled[counter] {
		g := graph.New(schema)
		prev := graph.Start
		for i := range steps {
			name := fmt.Sprint("n", i)
			g.AddNode(name, func(ctx context.Context, st counter) (state.Update[counter], error) {
				return state.Writes(n.Set(st.N + 1)), nil
			}).AddEdge(prev, name)
			prev = name
		}
		c, err := g.Compile(graph.WithCheckpointer(s), graph.WithDurability(d))
		require.NoError(t, err)
		return c
	}
	for _, tc := range []struct {
		d       graph.Durability
		perStep int64
	}{{graph.DurabilitySync, 1}, {graph.DurabilityAsync, 1}, {graph.DurabilityExit, 0}} {
		t.Run(tc.d.String(), func(t *testing.T) {
			t.Parallel()
			s, rt := tracedSaver(t)
			ctx := context.Background()
			run := func(steps int) (int64, map[string]int) {
				c := chain(t, steps, s, tc.d)
				rt.take()
				out, err := c.Invoke(ctx, state.Update[counter]{}, graph.WithThread(newThread()))
				require.NoError(t, err)
				require.Equal(t, steps, out.N)
				return rt.take()
			}
			run(10) // prepares the statements
			short, shortStmts := run(10)
			long, longStmts := run(20)
			require.Equal(t, tc.perStep*10, long-short, "round trips a step: 10 steps %v, 20 steps %v", shortStmts, longStmts)
			t.Logf("%s: a run of 10 steps %d round trips, of 20 steps %d", tc.d, short, long)
		})
	}
}
