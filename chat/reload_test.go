package chat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// kinds counts the messages blobs a saver is asked to store, by kind.
type kinds struct {
	checkpoint.Saver
	mu             sync.Mutex
	deltas, wholes int
	// The bytes of the last whole value stored, the bytes and number of
	// the deltas stored since, and how many deltas were stored beyond the
	// snapshot schedule's bound: at least 64 of them, whose rows (some
	// 128 bytes of decoding each) cost more than the value's bytes.
	whole, since, rows, over int
}

func (k *kinds) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	k.mu.Lock()
	if b, ok := req.Checkpoint.New["messages"]; ok {
		if b.Delta {
			k.deltas++
			k.since += len(b.Data)
			k.rows++
			if k.rows > 64 && (k.rows-1)*128 >= k.whole+k.since {
				k.over++
			}
		} else {
			k.wholes++
			k.whole, k.since, k.rows = len(b.Data), 0, 0
		}
	}
	k.mu.Unlock()
	return k.Saver.Put(ctx, req)
}

// turnGraph answers each input with a short AI message (tens of bytes,
// where a row costs more to read than its message); every 90th turn it
// also rewrites an earlier message (a replace by id), and turn 150
// removes one.
func turnGraph(t *testing.T, saver checkpoint.Saver) (*graph.Compiled[churnState], *state.Key[churnState, []chat.Message]) {
	g := graph.New(state.NewSchema[churnState](churnMsgs, churnSteps))
	g.AddNode("answer", func(_ context.Context, s churnState) (state.Update[churnState], error) {
		turn := s.Steps + 1
		upd := []chat.Message{chat.AI(fmt.Sprintf("answer %d", turn))}
		switch {
		case turn == 150:
			upd = append(upd, chat.Remove(s.Messages[2].ID))
		case turn%90 == 0:
			upd = append(upd, chat.Human("edited").WithID(s.Messages[0].ID))
		}
		return state.Writes(churnMsgs.Set(upd), churnSteps.Set(1)), nil
	})
	g.AddEdge(graph.Start, "answer")
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app, churnMsgs
}

// A chat stored over many runs (each turn its own run, which restores the
// messages field's storage track from the value it read) reads back in
// a fresh process — a new saver on the same database, a new graph —
// exactly as it ran: the latest state and every checkpoint of History,
// on SQLite and (with STATEGRAPH_POSTGRES_DSN) PostgreSQL. Its turns are
// stored as deltas, with a snapshot where a turn rewrote the history and
// where the chain outgrew the snapshot rule, not at every run.
func TestAChatOfManyRunsReadsBackInAFreshSaver(t *testing.T) {
	t.Parallel()
	backends := map[string]func(t *testing.T) (first, again func() checkpoint.Saver){
		"sqlite": func(t *testing.T) (func() checkpoint.Saver, func() checkpoint.Saver) {
			path := filepath.Join(t.TempDir(), "chat.db")
			open := func() checkpoint.Saver {
				lite, err := sqlite.Open(path)
				require.NoError(t, err)
				t.Cleanup(func() { _ = lite.Close() })
				return lite
			}
			return open, open
		},
	}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		backends["postgres"] = func(t *testing.T) (func() checkpoint.Saver, func() checkpoint.Saver) {
			schema := pgtest.Schema(t)
			open := func() checkpoint.Saver {
				pg := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(schema))
				require.NoError(t, pg.Migrate(context.Background()))
				return pg
			}
			return open, open
		}
	}
	for name, backend := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first, again := backend(t)
			readsBackInAFreshSaver(t, first(), again)
		})
	}
}

func readsBackInAFreshSaver(t *testing.T, saver checkpoint.Saver, again func() checkpoint.Saver) {
	ctx := context.Background()
	counted := &kinds{Saver: saver}
	app, msgs := turnGraph(t, counted)
	thread := graph.WithThread("many-runs")
	const turns = 200
	var ran [][]chat.Message // the state after each checkpoint, oldest first
	for i := 1; i <= turns; i++ {
		input := state.Writes(msgs.Set([]chat.Message{chat.Human(fmt.Sprintf("question %d", i))}))
		for ev, err := range app.Stream(ctx, input, thread, graph.StreamModes(graph.Values)) {
			require.NoError(t, err)
			ran = append(ran, ev.State.Messages)
		}
	}

	t.Logf("%d deltas, %d whole values", counted.deltas, counted.wholes)
	const rewrites = 3 // turns 90, 150 and 180
	require.Greater(t, counted.deltas, 2*turns-20, "the turns are stored as deltas")
	require.Greater(t, counted.wholes, rewrites+2, "a rewrite stores the history whole, and so does the snapshot schedule")
	require.Less(t, counted.wholes, rewrites+12, "snapshots follow the schedule, not every run")
	require.Zero(t, counted.over, "the chain stays within the schedule's bound across runs")

	fresh, _ := turnGraph(t, again())
	snap, err := fresh.State(ctx, thread)
	require.NoError(t, err)
	require.Equal(t, ran[len(ran)-1], snap.Values.Messages)
	var hist [][]chat.Message
	for s, err := range fresh.History(ctx, thread) {
		require.NoError(t, err)
		if s.Metadata.Source == checkpoint.SourceLoop {
			hist = append(hist, s.Values.Messages)
		}
	}
	slices.Reverse(hist)
	require.Equal(t, len(ran), len(hist))
	for i := range ran {
		require.Equal(t, ran[i], hist[i], "loop checkpoint %d of %d", i+1, len(hist))
	}
}
