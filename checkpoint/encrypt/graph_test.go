package encrypt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

type review struct {
	Secret string
	Notes  []string
	Rounds int
	Answer string
}

var (
	secretF = state.Value("secret", func(r *review) *string { return &r.Secret })
	notesF  = state.Append("notes", func(r *review) *[]string { return &r.Notes })
	roundsF = state.Sum("rounds", func(r *review) *int { return &r.Rounds })
	answerF = state.Value("answer", func(r *review) *string { return &r.Answer })
	reviewS = state.NewSchema(secretF, notesF, roundsF, answerF)
)

// A graph run and resumed through the wrapper: forty rounds of an append
// field (delta chains and their merges), Sends fanned out to workers, an
// interrupt whose payload is secret, and a resume by a second process
// whose keyring was rotated meanwhile. Nothing readable reaches the
// database, the lease is taken, and the resume does not re-run what
// finished.
func TestGraphRunsAndResumesThroughTheWrapper(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.db")
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	ring1, err := encrypt.NewKeyring(k1)
	require.NoError(t, err)

	var loops, asks, leased atomic.Int64
	build := func(ring *encrypt.Keyring) *graph.Compiled[review] {
		saver := encrypt.Wrap(openSQLite(t, path), ring)
		g := graph.New(reviewS).
			AddNode("loop", func(ctx context.Context, r review) (state.Update[review], error) {
				loops.Add(1)
				return state.Writes(notesF.Set([]string{fmt.Sprintf("note %d of %s", r.Rounds, r.Secret)}), roundsF.Set(1)), nil
			}).
			AddNode("worker", func(ctx context.Context, r review) (state.Update[review], error) {
				return state.Writes(notesF.Set([]string{"worker saw " + r.Secret})), nil
			}).
			AddNode("ask", func(ctx context.Context, r review) (state.Update[review], error) {
				asks.Add(1)
				if info, err := saver.(checkpoint.Leaser).LeaseOf(ctx, "review-1"); err == nil && info != nil {
					leased.Add(1)
				}
				ans, err := graph.Interrupt[string](ctx, "approve the plan for "+r.Secret+"?")
				if err != nil {
					return state.Update[review]{}, err
				}
				return state.Writes(answerF.Set(ans)), nil
			}).
			AddEdge(graph.Start, "loop").
			AddConditionalEdges("loop", graph.FanOut(func(ctx context.Context, r review) ([]graph.Send[review], error) {
				if r.Rounds < 40 {
					return []graph.Send[review]{graph.SendTo("loop", r)}, nil
				}
				return []graph.Send[review]{graph.SendTo("worker", r), graph.SendTo("worker", r)}, nil
			}), "loop", "worker").
			AddEdge("worker", "ask")
		app, err := g.Compile(graph.WithCheckpointer(saver))
		require.NoError(t, err)
		return app
	}

	ctx := context.Background()
	thread := graph.WithThread("review-1")
	_, err = build(ring1).Invoke(ctx, state.Writes(secretF.Set("PROJECT-NIGHTJAR")), thread, graph.WithRecursionLimit(100))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	require.EqualValues(t, 40, loops.Load())

	db := openDB(t, path)
	for _, q := range []string{
		`SELECT group_concat(data, '') FROM blobs`,
		`SELECT group_concat(value, '') FROM writes`,
		`SELECT group_concat(metadata || versions, '') FROM checkpoints`,
		`SELECT group_concat(inline, '') FROM checkpoints`, // small values (sqlite.inline.go)
	} {
		var all string
		require.NoError(t, db.QueryRow(q).Scan(&all))
		assert.NotContains(t, all, "NIGHTJAR", q)
		assert.NotContains(t, all, "approve the plan", q)
	}

	ring2, err := encrypt.NewKeyring(k2, k1) // rotated before the resume
	require.NoError(t, err)
	app := build(ring2)
	out, err := app.Invoke(ctx, state.Update[review]{}, thread, graph.Resume("yes"), graph.WithRecursionLimit(100))
	require.NoError(t, err)
	assert.Equal(t, "yes", out.Answer)
	assert.EqualValues(t, 40, loops.Load(), "finished nodes are not run again")
	assert.EqualValues(t, 2, asks.Load(), "the interrupted node runs again, once")
	assert.EqualValues(t, 2, leased.Load(), "both runs held the thread's lease, taken through the wrapper")
	require.Len(t, out.Notes, 42)
	assert.Equal(t, "note 39 of PROJECT-NIGHTJAR", out.Notes[39])

	n := 0
	for snap, err := range app.History(ctx, graph.WithThread("review-1")) {
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(snap.Values.Secret, "PROJECT") || snap.Values.Secret == "")
		n++
	}
	assert.Greater(t, n, 40)
}
