package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// A node debits an account in the transaction that saves its task's
// record, then fails: the retry reads the record and does not debit
// again. The accounts table lives in the checkpoint database's file, so
// the saver is made with sqlite.New on the program's own handle.
func ExampleTransact() {
	dir, _ := os.MkdirTemp("", "transact")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "bank.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	defer db.Close()
	db.Exec(`CREATE TABLE accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL)`)
	db.Exec(`INSERT INTO accounts VALUES ('ana', 100)`)
	saver, _ := sqlite.New(db)
	defer saver.Close()

	runs := 0
	debit := func(ctx context.Context, c counter) (state.Update[counter], error) {
		runs++
		left, err := graph.Transact(ctx, "debit", func(ctx context.Context) (int, error) {
			tx, _ := graph.Tx[*sql.Tx](ctx)
			if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - 25 WHERE id = 'ana'`); err != nil {
				return 0, err
			}
			var left int
			return left, tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = 'ana'`).Scan(&left)
		})
		if err != nil {
			return state.Update[counter]{}, err
		}
		if runs == 1 {
			return state.Update[counter]{}, errors.New("the receipt printer jammed")
		}
		return state.Writes(nField.Set(left)), nil
	}
	g := graph.New(schema).AddNode("debit", debit).AddEdge(graph.Start, "debit")
	app, _ := g.Compile(graph.WithCheckpointer(saver))
	ctx, thread := context.Background(), graph.WithThread("order-1")

	_, err := app.Invoke(ctx, state.Writes(lastField.Set("order")), thread)
	fmt.Println("first run:", err != nil)
	out, _ := app.Invoke(ctx, state.Update[counter]{}, thread)
	var balance int
	db.QueryRow(`SELECT balance FROM accounts WHERE id = 'ana'`).Scan(&balance)
	fmt.Println("state:", out.N, "table:", balance)
	// Output:
	// first run: true
	// state: 75 table: 75
}
