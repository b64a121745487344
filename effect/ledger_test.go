package effect_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

var retryOnce = graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})

func TestAnEndedCallIsAnsweredFromTheLedger(t *testing.T) {
	t.Parallel()
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "l.db"))
	require.NoError(t, err)
	defer saver.Close()
	card := &cardTool{}
	var tries atomic.Int64
	after := func(context.Context) error {
		if tries.Add(1) == 1 {
			return errors.New("the receipt printer jammed")
		}
		return nil
	}
	c := payGraph(t, saver, effect.Wrap(card), after, retryOnce)
	got, err := c.Invoke(t.Context(), input, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, "charged 10 EUR", got.Result)
	require.EqualValues(t, 2, tries.Load())
	require.EqualValues(t, 1, card.calls.Load(), "the retry read the call's result from the ledger")
}

func TestAnInDoubtCallGoesToTheReconcileHook(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		applied bool
		calls   int64
		result  string
	}{
		{"applied", true, 1, "found payment"},
		{"not applied", false, 2, "charged 10 EUR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			card := &cardTool{}
			card.fail.Store(true) // the first call fails: its end is not recorded
			var asked []effect.Call
			hook := effect.ReconcileFunc(func(ctx context.Context, call effect.Call) (effect.Outcome, error) {
				asked = append(asked, call)
				card.fail.Store(false)
				return effect.Outcome{Applied: tc.applied, Result: "found payment"}, nil
			})
			c := payGraph(t, memory.New(), effect.Wrap(card, effect.WithReconcile(hook)), nil, retryOnce)
			got, err := c.Invoke(t.Context(), input, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, tc.result, got.Result)
			require.EqualValues(t, tc.calls, card.calls.Load())
			require.Len(t, asked, 1)
			require.Equal(t, "charge_card", asked[0].Tool)
			require.Equal(t, "10 EUR", asked[0].Input)
			require.Equal(t, "pay", asked[0].Node)
			require.NotEmpty(t, asked[0].Key)
			require.False(t, asked[0].Started.IsZero())
		})
	}
}

func TestAnInDoubtCallWithoutAHookAsksAPerson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer effect.Decision
		calls  int64
		result string
	}{
		{effect.Decision{Action: effect.Confirm, Result: "paid, says the bank"}, 1, "paid, says the bank"},
		{effect.Decision{Action: effect.Retry}, 2, "charged 10 EUR"},
		{effect.Decision{Action: effect.Skip}, 1, "The call of tool charge_card was skipped by a person: it did not run."},
	} {
		t.Run(string(tc.answer.Action), func(t *testing.T) {
			t.Parallel()
			card := &cardTool{keys: make(chan string, 2)}
			card.fail.Store(true)
			c := payGraph(t, memory.New(), effect.Wrap(card), nil)
			_, err := c.Invoke(t.Context(), input, graph.WithThread("t"))
			require.ErrorContains(t, err, "card network timeout")
			// Run again: the call is in doubt, and nothing runs it.
			_, err = c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread("t"))
			doubt := inDoubtOf(t, err)
			require.Equal(t, effect.InDoubtKind, doubt.Kind)
			require.Equal(t, "charge_card", doubt.Call.Tool)
			require.Equal(t, "10 EUR", doubt.Call.Input)
			require.Equal(t, <-card.keys, doubt.Call.Key, "the interrupt shows the key the tool was given")
			require.EqualValues(t, 1, card.calls.Load(), "an in-doubt call is not run again")

			card.fail.Store(false)
			got, err := c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread("t"), graph.Resume(tc.answer))
			require.NoError(t, err)
			require.Equal(t, tc.result, got.Result)
			require.Equal(t, tc.calls, card.calls.Load())
		})
	}
}

func TestAnUnknownActionIsAnError(t *testing.T) {
	t.Parallel()
	card := &cardTool{}
	card.fail.Store(true)
	c := payGraph(t, memory.New(), effect.Wrap(card), nil)
	_, err := c.Invoke(t.Context(), input, graph.WithThread("t"))
	require.Error(t, err)
	_, err = c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	_, err = c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread("t"), graph.Resume(effect.Decision{Action: "maybe"}))
	require.ErrorIs(t, err, effect.ErrAction)
	require.ErrorContains(t, err, `"maybe"`)
	require.EqualValues(t, 1, card.calls.Load())
}

func TestWithoutACheckpointerTheToolSimplyRuns(t *testing.T) {
	t.Parallel()
	card := &cardTool{}
	c := payGraph(t, nil, effect.Wrap(card), nil)
	got, err := c.Invoke(t.Context(), input)
	require.NoError(t, err)
	require.Equal(t, "charged 10 EUR", got.Result)
	out, err := effect.Wrap(card).Call(t.Context(), "outside a node")
	require.NoError(t, err)
	require.Equal(t, "charged outside a node", out)
	require.EqualValues(t, 2, card.calls.Load())
}

func TestTheKeyIsStablePerTaskAndDiffersByInput(t *testing.T) {
	t.Parallel()
	card := &cardTool{keys: make(chan string, 3)}
	w := effect.Wrap(card)
	node := func(ctx context.Context, s payState) (state.Update[payState], error) {
		for _, in := range []string{"a", "b", "a"} {
			if _, err := w.Call(ctx, in); err != nil {
				return state.Update[payState]{}, err
			}
		}
		return state.Writes(resultField.Set("ok")), nil
	}
	c, err := graph.New(schema).AddNode("pay", node).AddEdge(graph.Start, "pay").Compile(graph.WithCheckpointer(memory.New()))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), input, graph.WithThread("t"))
	require.NoError(t, err)
	require.EqualValues(t, 2, card.calls.Load(), "the same tool and input in one task is one effect")
	a, b := <-card.keys, <-card.keys
	require.NotEqual(t, a, b)
}

func TestALedgerCallInsideTransactIsRefused(t *testing.T) {
	t.Parallel()
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "l.db"))
	require.NoError(t, err)
	defer saver.Close()
	card := &cardTool{}
	w := effect.Wrap(card)
	node := func(ctx context.Context, s payState) (state.Update[payState], error) {
		_, err := graph.Transact(ctx, "pay", func(ctx context.Context) (string, error) {
			return w.Call(ctx, "10 EUR")
		})
		return state.Update[payState]{}, err
	}
	c, err := graph.New(schema).AddNode("pay", node).AddEdge(graph.Start, "pay").Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	_, err = c.Invoke(t.Context(), input, graph.WithThread("t"))
	require.ErrorIs(t, err, effect.ErrInTransaction)
	require.Zero(t, card.calls.Load())
}
