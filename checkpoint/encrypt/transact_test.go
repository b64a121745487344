package encrypt_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// graph.Transact through the wrapper on SQLite: the node's row and the
// task's record commit in one transaction, the record stored encrypted;
// the node then fails, and the retry reads the record back through the
// keyring instead of writing the row again. A transaction whose fn fails
// leaves neither.
func TestTransactCommitsThroughTheWrapper(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cp.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	_, err = db.Exec(`CREATE TABLE ledger (note TEXT NOT NULL)`)
	require.NoError(t, err)
	inner, err := sqlite.New(db)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, inner.Close()) })
	saver := encrypt.Wrap(inner, newRing(t))
	require.Implements(t, (*graph.TxSaver)(nil), saver)

	calls, runs := 0, 0
	g := graph.New(reviewS).
		AddNode("book", func(ctx context.Context, r review) (state.Update[review], error) {
			runs++
			note, err := graph.Transact(ctx, "book", func(ctx context.Context) (string, error) {
				calls++
				tx, ok := graph.Tx[*sql.Tx](ctx)
				if !ok {
					return "", errors.New("no *sql.Tx in the context")
				}
				if calls == 1 {
					_, err := tx.ExecContext(ctx, `INSERT INTO ledger VALUES ('rolled back')`)
					require.NoError(t, err)
					return "", errors.New("the first attempt fails inside the transaction")
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO ledger VALUES (?)`, "booked "+r.Secret)
				return "booked " + r.Secret, err
			})
			if err != nil {
				return state.Update[review]{}, err
			}
			if runs == 2 {
				return state.Update[review]{}, errors.New("the node fails after its transaction committed")
			}
			return state.Writes(answerF.Set(note)), nil
		}).
		AddEdge(graph.Start, "book")
	app, err := g.Compile(graph.WithCheckpointer(saver))
	require.NoError(t, err)
	thread := graph.WithThread("tx-1")

	_, err = app.Invoke(t.Context(), state.Writes(secretF.Set("plum")), thread)
	require.ErrorContains(t, err, "fails inside the transaction")
	rows := func() []string {
		var out []string
		rs, err := db.Query(`SELECT note FROM ledger ORDER BY rowid`)
		require.NoError(t, err)
		defer rs.Close()
		for rs.Next() {
			var s string
			require.NoError(t, rs.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rs.Err())
		return out
	}
	require.Empty(t, rows(), "the failed transaction's row is rolled back")
	require.Zero(t, records(t, inner, "tx-1"), "and no record is stored")

	_, err = app.Invoke(t.Context(), state.Update[review]{}, thread)
	require.ErrorContains(t, err, "after its transaction committed")
	require.Equal(t, []string{"booked plum"}, rows())
	require.Equal(t, 1, records(t, inner, "tx-1"), "the record committed with the row")

	out, err := app.Invoke(t.Context(), state.Update[review]{}, thread)
	require.NoError(t, err)
	require.Equal(t, "booked plum", out.Answer, "the record read back through the keyring")
	require.Equal(t, 2, calls, "the retry does not run the transaction again")
	require.Equal(t, []string{"booked plum"}, rows())
}

// records counts the task records (graph.Durable and Transact results) in
// the thread's latest checkpoint read past the wrapper, and checks each is
// ciphertext.
func records(t *testing.T, raw checkpoint.Saver, thread string) int {
	t.Helper()
	tup, err := raw.Get(t.Context(), checkpoint.Config{ThreadID: thread})
	require.NoError(t, err)
	n := 0
	for _, w := range tup.PendingWrites {
		if w.Channel == "__durable__" {
			n++
			require.NotContains(t, string(w.Value), "plum", "a record is stored encrypted")
			require.NotContains(t, string(w.Value), "book", "a record is stored encrypted")
		}
	}
	return n
}

// A saver without transactions stays one behind the wrapper: Transact
// fails with graph.ErrNoTx, naming the saver.
func TestTheWrapperClaimsNoTransactionsItsSaverLacks(t *testing.T) {
	t.Parallel()
	saver := encrypt.Wrap(memory.New(), newRing(t))
	_, ok := saver.(graph.TxSaver)
	require.False(t, ok)
}
