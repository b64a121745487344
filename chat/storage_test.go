package chat_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/chat/internal/chattest"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

// churn is a node that, step after step, appends messages (most steps),
// and now and then replaces one, removes one, or drops the history:
// the writes a messages field stores as deltas and as snapshots.
type churnState struct {
	Messages []chat.Message
	Steps    int
}

var (
	churnMsgs  = chat.Messages("messages", func(s *churnState) *[]chat.Message { return &s.Messages })
	churnSteps = state.Sum("steps", func(s *churnState) *int { return &s.Steps })
)

func churn(ctx context.Context, s churnState) (state.Update[churnState], error) {
	n := len(s.Messages)
	step := s.Steps + 1
	var upd []chat.Message
	switch {
	case step%37 == 0 && n > 3:
		upd = []chat.Message{chat.RemoveAll(), chat.Human(fmt.Sprintf("fresh start at %d", step))}
	case step%11 == 0 && n > 2:
		upd = []chat.Message{chat.AI(fmt.Sprintf("edited at %d", step)).WithID(s.Messages[n/2].ID)}
	case step%7 == 0 && n > 2:
		upd = []chat.Message{chat.Remove(s.Messages[1].ID), chat.Human(fmt.Sprintf("after a removal at %d", step))}
	default:
		upd = []chat.Message{chat.Human(fmt.Sprintf("q %d", step)), chat.AI(fmt.Sprintf("a %d", step), chat.Call(fmt.Sprintf("c%d", step), "f", `{"n":1}`))}
	}
	return state.Writes(churnMsgs.Set(upd), churnSteps.Set(1)), nil
}

func churnGraph(t *testing.T, saver checkpoint.Saver, steps int) *graph.Compiled[churnState] {
	g := graph.New(state.NewSchema[churnState](churnMsgs, churnSteps))
	g.AddNode("churn", churn)
	g.AddEdge(graph.Start, "churn")
	g.AddConditionalEdges("churn", graph.Choose(func(ctx context.Context, s churnState) (string, error) {
		if s.Steps >= steps {
			return graph.End, nil
		}
		return "churn", nil
	}), "churn", graph.End)
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	return app
}

// A messages field is stored as deltas, with snapshots where a step
// replaced or removed messages; every saver, encrypted or not, reads back
// exactly what ran: the state after each step in History, the latest in
// State, and a fork, a copy and a pruned thread too.
func TestMessagesStoredAsDeltasReadBackWhatRan(t *testing.T) {
	t.Parallel()
	savers := chattest.Savers(t)
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "enc.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = lite.Close() })
	secret := make([]byte, encrypt.KeySize)
	_, _ = rand.Read(secret)
	ring, err := encrypt.NewKeyring(encrypt.Key{ID: "k1", Secret: secret})
	require.NoError(t, err)
	savers["sqlite-encrypted"] = encrypt.Wrap(lite, ring)
	const steps = 160
	for name, saver := range savers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			thread := graph.WithThread("churn")
			app := churnGraph(t, saver, steps)
			var ran [][]chat.Message // the state after each checkpoint, oldest first
			for ev, err := range app.Stream(ctx, state.Writes(churnMsgs.Set([]chat.Message{chat.Human("hello")})), thread, graph.StreamModes(graph.Values), graph.WithRecursionLimit(steps+10)) {
				require.NoError(t, err)
				ran = append(ran, ev.State.Messages)
			}
			require.Greater(t, len(ran), steps)

			fresh := churnGraph(t, saver, steps)
			snap, err := fresh.State(ctx, thread)
			require.NoError(t, err)
			require.Equal(t, ran[len(ran)-1], snap.Values.Messages)
			var hist [][]chat.Message
			var configs []checkpoint.Config
			for s, err := range fresh.History(ctx, thread) {
				require.NoError(t, err)
				hist = append(hist, s.Values.Messages)
				configs = append(configs, s.Config)
			}
			slices.Reverse(hist)
			slices.Reverse(configs)
			// History holds the input checkpoint (nothing yet) before the
			// states the Values stream showed.
			require.Len(t, hist, len(ran)+1)
			require.Empty(t, hist[0])
			for i := range ran {
				require.Equal(t, ran[i], hist[i+1], "checkpoint %d of %d", i+1, len(hist))
			}

			// A fork from the middle: its state is that checkpoint's plus
			// the update, and the main line is untouched.
			mid := len(configs) / 2
			fork, err := fresh.UpdateState(ctx, state.Writes(churnMsgs.Set([]chat.Message{chat.Human("a fork")})), "churn", graph.WithCheckpoint(configs[mid].CheckpointID), thread)
			require.NoError(t, err)
			forked, err := fresh.State(ctx, thread, graph.WithCheckpoint(fork.CheckpointID))
			require.NoError(t, err)
			want := chat.Add(hist[mid], []chat.Message{chat.Human("a fork")})
			require.Equal(t, want, forked.Values.Messages)
			again, err := fresh.State(ctx, thread, graph.WithCheckpoint(configs[len(configs)-1].CheckpointID))
			require.NoError(t, err)
			require.Equal(t, ran[len(ran)-1], again.Values.Messages)

			if c, ok := saver.(checkpoint.Copier); ok {
				require.NoError(t, c.CopyThread(ctx, "churn", "churn-copy"))
				copied, err := fresh.State(ctx, graph.WithThread("churn-copy"))
				require.NoError(t, err)
				require.Equal(t, forked.Values.Messages, copied.Values.Messages, "the copy's head is the fork")
			}
			if p, ok := saver.(checkpoint.Pruner); ok {
				require.NoError(t, p.Prune(ctx, "churn", 10))
				pruned, err := fresh.State(ctx, thread)
				require.NoError(t, err)
				require.Equal(t, forked.Values.Messages, pruned.Values.Messages)
				n := 0
				for s, err := range fresh.History(ctx, thread) {
					require.NoError(t, err)
					require.NotNil(t, s)
					n++
				}
				require.Equal(t, 10, n)
			}
		})
	}
}
