package graph_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
)

// The crash tests of Transact run this test binary again as
// TestTransactChild, which runs thread "pay" of txGraph and stops for
// good (blocks until it is killed) at the point STATEGRAPH_TX_POINT names,
// after saying "at <point>":
//   - before: in node charge, before Transact;
//   - inside: in Transact's function, after the account row is written,
//     before the commit;
//   - after: in node charge, after Transact committed, before the node
//     returns;
//   - next: in node receipt, the step after charge, whose checkpoint is
//     stored.
// Every run of Transact's function appends "fn" to the log file.

const txThread = "pay"

// openShared opens a database file that holds the application's table
// beside the checkpoints, and a Saver on it (sqlite.New: sqlite.Open
// refuses a file with tables of another program).
func openShared(t *testing.T, path string) (*sqlite.Saver, *sql.DB) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(`CREATE TABLE IF NOT EXISTS charges (amount INTEGER NOT NULL)`)
	require.NoError(t, err)
	saver, err := sqlite.New(db)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	return saver, db
}

// txGraph is Start → charge → receipt; charge inserts a row of 10 into
// charges in its step's transaction and sets n to the sum of the table.
func txGraph(t *testing.T, saver checkpoint.Saver, table, log, stopAt string) *graph.Compiled[counter] {
	stop := func(ctx context.Context, point string) {
		if point == stopAt {
			fmt.Println("at", point)
			<-ctx.Done() // killed here: the run's context never ends
		}
	}
	charge := func(ctx context.Context, s counter) (state.Update[counter], error) {
		stop(ctx, "before")
		sum, err := graph.Transact(ctx, "charge", func(ctx context.Context) (int, error) {
			if err := appendLine(log, "fn"); err != nil {
				return 0, err
			}
			sum, err := insertCharge(ctx, table, 10)
			if err != nil {
				return 0, err
			}
			stop(ctx, "inside")
			return sum, nil
		})
		if err != nil {
			return state.Update[counter]{}, err
		}
		stop(ctx, "after")
		return state.Writes(nField.Set(sum)), nil
	}
	receipt := func(ctx context.Context, s counter) (state.Update[counter], error) {
		stop(ctx, "next")
		return state.Writes(trailField.Set([]string{fmt.Sprint("charged ", s.N)})), nil
	}
	g := graph.New(schema).AddNode("charge", charge).AddNode("receipt", receipt).
		AddEdge(graph.Start, "charge").AddEdge("charge", "receipt")
	return mustCompile(t, g, graph.WithCheckpointer(saver), graph.WithLease(time.Second))
}

// insertCharge inserts a row of amount into table in the transaction of
// the Transact call running in ctx (SQLite's or PostgreSQL's), and returns
// the table's sum.
func insertCharge(ctx context.Context, table string, amount int) (int, error) {
	var sum int
	if tx, ok := graph.Tx[*sql.Tx](ctx); ok {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (amount) VALUES (?)`, amount); err != nil {
			return 0, err
		}
		return sum, tx.QueryRowContext(ctx, `SELECT SUM(amount) FROM `+table).Scan(&sum)
	}
	if tx, ok := graph.Tx[pgx.Tx](ctx); ok {
		if _, err := tx.Exec(ctx, `INSERT INTO `+table+` (amount) VALUES ($1)`, amount); err != nil {
			return 0, err
		}
		return sum, tx.QueryRow(ctx, `SELECT SUM(amount) FROM `+table).Scan(&sum)
	}
	return 0, errors.New("no transaction in Transact")
}

// txEnv is the database of a Transact crash test: a SQLite file, or a
// PostgreSQL schema.
type txEnv struct {
	db       string
	pgSchema string
}

// open returns the saver, the application's table (created) and a
// function counting its rows.
func (e txEnv) open(t *testing.T) (checkpoint.Saver, string, func() int) {
	t.Helper()
	if e.db != "" {
		saver, db := openShared(t, e.db)
		return saver, "charges", func() int {
			var n int
			require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM charges`).Scan(&n))
			return n
		}
	}
	pool := pgtest.Pool(t, nil)
	saver := postgres.New(pool, postgres.WithSchema(e.pgSchema))
	require.NoError(t, saver.Migrate(t.Context()))
	table := pgx.Identifier{e.pgSchema, "charges"}.Sanitize()
	_, err := pool.Exec(t.Context(), `CREATE TABLE IF NOT EXISTS `+table+` (amount integer NOT NULL)`)
	require.NoError(t, err)
	return saver, table, func() int {
		var n int
		require.NoError(t, pool.QueryRow(t.Context(), `SELECT COUNT(*) FROM `+table).Scan(&n))
		return n
	}
}

// txBackends returns SQLite and, with STATEGRAPH_POSTGRES_DSN, PostgreSQL.
func txBackends(t *testing.T) map[string]txEnv {
	out := map[string]txEnv{"sqlite": {db: filepath.Join(t.TempDir(), "pay.db")}}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		out["postgres"] = txEnv{pgSchema: pgtest.Schema(t)}
	}
	return out
}

// TestTransactChild is the child process of the Transact crash tests; it
// does nothing in a normal test run.
func TestTransactChild(t *testing.T) {
	log, point := os.Getenv("STATEGRAPH_TX_LOG"), os.Getenv("STATEGRAPH_TX_POINT")
	if log == "" {
		t.Skip("child process of the Transact crash tests")
	}
	e := txEnv{db: os.Getenv("STATEGRAPH_TX_DB"), pgSchema: os.Getenv("STATEGRAPH_TX_PG_SCHEMA")}
	saver, table, _ := e.open(t)
	c := txGraph(t, saver, table, log, point)
	_, err := c.Invoke(context.Background(), state.Writes(lastField.Set("go")), graph.WithThread(txThread))
	require.NoError(t, err)
}

// TestTransactRowsAndCheckpointsAgreeAfterAKill kills a process at each
// point of a transactional step and resumes the thread in this one: the
// application's rows and the thread always agree, and the charge is
// applied exactly once.
func TestTransactRowsAndCheckpointsAgreeAfterAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	for _, tc := range []struct {
		point string
		rows  int // rows of charges right after the kill
		fnRan int // runs of Transact's function over both processes
	}{
		{"before", 0, 1},
		{"inside", 0, 2}, // rolled back by the kill, run again on resume
		{"after", 1, 1},  // committed: the resume reads the record
		{"next", 1, 1},
	} {
		for name, e := range txBackends(t) {
			t.Run(name+"/"+tc.point, func(t *testing.T) {
				t.Parallel()
				log := filepath.Join(t.TempDir(), "fn.log")
				saver, table, rows := e.open(t)

				cmd := exec.Command(os.Args[0], "-test.run=^TestTransactChild$", "-test.v")
				cmd.Env = append(os.Environ(), "STATEGRAPH_TX_DB="+e.db, "STATEGRAPH_TX_PG_SCHEMA="+e.pgSchema, "STATEGRAPH_TX_LOG="+log, "STATEGRAPH_TX_POINT="+tc.point)
				out, err := cmd.StdoutPipe()
				require.NoError(t, err)
				cmd.Stderr = os.Stderr
				require.NoError(t, cmd.Start())
				lines := bufio.NewScanner(out)
				reached := false
				var said []string
				for lines.Scan() {
					if strings.TrimSpace(lines.Text()) == "at "+tc.point {
						reached = true
						break
					}
					said = append(said, lines.Text())
				}
				require.True(t, reached, "the child never reached %s; it said:\n%s", tc.point, strings.Join(said, "\n"))
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
				require.Error(t, cmd.Wait())

				require.Equal(t, tc.rows, rows(), "rows after the kill")
				require.Equal(t, tc.rows == 1, hasRecord(t, saver), "the charge's record is saved exactly when its row is")

				c := txGraph(t, saver, table, log, "")
				got, err := c.Invoke(t.Context(), state.Update[counter]{}, graph.WithThread(txThread), graph.WaitForThread())
				require.NoError(t, err)
				require.Equal(t, 1, rows(), "the charge is applied exactly once")
				require.Equal(t, 10, got.N)
				require.Equal(t, []string{"charged 10"}, got.Trail)
				require.Len(t, readLog(t, log), tc.fnRan)
			})
		}
	}
}

// hasRecord reports whether the thread holds a saved Transact result:
// a pending write of the head, or a checkpoint past charge's step.
func hasRecord(t *testing.T, saver checkpoint.Saver) bool {
	t.Helper()
	tup, err := saver.Get(t.Context(), checkpoint.Config{ThreadID: txThread})
	require.NoError(t, err)
	if tup.Metadata.Step >= 1 {
		return true // charge's step is applied
	}
	for _, w := range tup.PendingWrites {
		if w.Channel == "__durable__" {
			return true
		}
	}
	return false
}
