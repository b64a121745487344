package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// chargeNode inserts a row of amount into charges with Transact (key
// "charge"), counting the runs of Transact's function in runs; then calls
// after, which may fail or interrupt.
func chargeNode(amount int, runs *atomic.Int64, after func(ctx context.Context) error) graph.NodeFunc[counter] {
	return func(ctx context.Context, s counter) (state.Update[counter], error) {
		got, err := graph.Transact(ctx, "charge", func(ctx context.Context) (int, error) {
			runs.Add(1)
			tx, ok := graph.Tx[*sql.Tx](ctx)
			if !ok {
				return 0, errors.New("no *sql.Tx")
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO charges (amount) VALUES (?)`, amount)
			return amount, err
		})
		if err != nil {
			return state.Update[counter]{}, err
		}
		if after != nil {
			if err := after(ctx); err != nil {
				return state.Update[counter]{}, err
			}
		}
		return state.Writes(totalField.Set(got)), nil
	}
}

func sumCharges(t *testing.T, db *sql.DB) (rows, sum int) {
	t.Helper()
	require.NoError(t, db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(amount), 0) FROM charges`).Scan(&rows, &sum))
	return rows, sum
}

func TestTransactRetryAfterCommitDoesNotApplyTwice(t *testing.T) {
	t.Parallel()
	saver, db := openShared(t, filepath.Join(t.TempDir(), "tx.db"))
	var runs, tries atomic.Int64
	flaky := func(ctx context.Context) error {
		if tries.Add(1) == 1 {
			return errors.New("the mail server is down")
		}
		return nil
	}
	g := graph.New(schema).AddNode("charge", chargeNode(10, &runs, flaky), graph.WithRetry(graph.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Nanosecond})).
		AddEdge(graph.Start, "charge")
	c := mustCompile(t, g, graph.WithCheckpointer(saver))
	got, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 10, got.Total)
	require.EqualValues(t, 2, tries.Load())
	require.EqualValues(t, 1, runs.Load(), "the retry read the committed result")
	rows, _ := sumCharges(t, db)
	require.Equal(t, 1, rows)
}

func TestTransactFunctionErrorRollsBack(t *testing.T) {
	t.Parallel()
	saver, db := openShared(t, filepath.Join(t.TempDir(), "tx.db"))
	var runs atomic.Int64
	node := func(ctx context.Context, s counter) (state.Update[counter], error) {
		_, err := graph.Transact(ctx, "charge", func(ctx context.Context) (int, error) {
			tx, _ := graph.Tx[*sql.Tx](ctx)
			if _, err := tx.ExecContext(ctx, `INSERT INTO charges (amount) VALUES (5)`); err != nil {
				return 0, err
			}
			if runs.Add(1) == 1 {
				return 0, errors.New("card declined")
			}
			return 5, nil
		})
		return state.Writes(totalField.Set(5)), err
	}
	c := mustCompile(t, graph.New(schema).AddNode("charge", node).AddEdge(graph.Start, "charge"), graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
	require.ErrorContains(t, err, "card declined")
	rows, _ := sumCharges(t, db)
	require.Zero(t, rows, "the failed function's row was rolled back")

	got, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 5, got.Total)
	rows, _ = sumCharges(t, db)
	require.Equal(t, 1, rows)
}

func TestTransactInterruptAfterCommitResumesWithoutApplyingAgain(t *testing.T) {
	t.Parallel()
	saver, db := openShared(t, filepath.Join(t.TempDir(), "tx.db"))
	var runs atomic.Int64
	ask := func(ctx context.Context) error {
		_, err := graph.Interrupt[bool](ctx, "send the receipt?")
		return err
	}
	c := mustCompile(t, graph.New(schema).AddNode("charge", chargeNode(7, &runs, ask)).AddEdge(graph.Start, "charge"), graph.WithCheckpointer(saver))
	_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
	require.ErrorIs(t, err, graph.ErrInterrupted)
	got, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"), graph.Resume(true))
	require.NoError(t, err)
	require.Equal(t, 7, got.Total)
	require.EqualValues(t, 1, runs.Load())
	rows, _ := sumCharges(t, db)
	require.Equal(t, 1, rows)
}

func TestTransactParallelTasksCommitTheirOwnWrites(t *testing.T) {
	t.Parallel()
	for name, e := range txBackends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			saver, table, rows := e.open(t)
			var runsA, runsB atomic.Int64
			var failOnce atomic.Bool
			failOnce.Store(true)
			node := func(amount int, runs *atomic.Int64, fail bool) graph.NodeFunc[counter] {
				return func(ctx context.Context, s counter) (state.Update[counter], error) {
					if _, err := graph.Transact(ctx, "charge", func(ctx context.Context) (int, error) {
						runs.Add(1)
						return insertCharge(ctx, table, amount)
					}); err != nil {
						return state.Update[counter]{}, err
					}
					if fail && failOnce.Swap(false) {
						return state.Update[counter]{}, errors.New("b fails after its commit")
					}
					return state.Writes(totalField.Set(amount)), nil
				}
			}
			g := graph.New(schema).
				AddNode("a", node(1, &runsA, false)).AddNode("b", node(2, &runsB, true)).
				AddEdge(graph.Start, "a").AddEdge(graph.Start, "b")
			c := mustCompile(t, g, graph.WithCheckpointer(saver))
			_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
			require.ErrorContains(t, err, "b fails after its commit")
			require.Equal(t, 2, rows(), "each task committed its own row")

			got, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread("t"))
			require.NoError(t, err)
			require.Equal(t, 3, got.Total)
			require.Equal(t, 2, rows(), "the resume applied nothing again")
			require.EqualValues(t, 1, runsA.Load())
			require.EqualValues(t, 1, runsB.Load())
		})
	}
}

func TestTransactUnderAsyncDurabilityCommits(t *testing.T) {
	t.Parallel()
	saver, db := openShared(t, filepath.Join(t.TempDir(), "tx.db"))
	var runs atomic.Int64
	g := graph.New(schema).AddNode("a", chargeNode(1, &runs, nil)).AddNode("b", visit("b")).
		AddEdge(graph.Start, "a").AddEdge("a", "b")
	c := mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityAsync))
	got, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t"))
	require.NoError(t, err)
	require.Equal(t, 1, got.Total)
	rows, _ := sumCharges(t, db)
	require.Equal(t, 1, rows)
}

func TestTransactRefusedWithoutATransactionalCheckpointer(t *testing.T) {
	t.Parallel()
	saver, _ := openShared(t, filepath.Join(t.TempDir(), "tx.db"))
	var runs atomic.Int64
	g := graph.New(schema).AddNode("charge", chargeNode(1, &runs, nil)).AddEdge(graph.Start, "charge")
	for name, opts := range map[string][]graph.CompileOption{
		"none":   nil,
		"memory": {graph.WithCheckpointer(memory.New())},
		"exit":   {graph.WithCheckpointer(saver), graph.WithDurability(graph.DurabilityExit)},
	} {
		t.Run(name, func(t *testing.T) {
			c := mustCompile(t, g, opts...)
			_, err := c.Invoke(t.Context(), state.Writes(lastField.Set("go")), graph.WithThread("t-"+name))
			require.ErrorIs(t, err, graph.ErrNoTx)
		})
	}
	require.Zero(t, runs.Load(), "the function never ran without a transaction")
}
