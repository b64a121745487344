package effect_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/state"
)

// The crash tests of the ledger run this test binary again as
// TestLedgerChild, which runs thread "pay" of ledgerGraph on the database
// STATEGRAPH_LEDGER_DB names (a SQLite file, or "pg:" and a PostgreSQL
// schema; see ledgerSaver) and blocks for good (until it is killed) at
// the point STATEGRAPH_LEDGER_POINT names, after saying "at <point>":
//   - tool: in the payment tool, after it appended "charge <key>" to the
//     bank's log (the effect took place; its end is not recorded);
//   - after: in the node, after the tool returned and its end was
//     recorded.

const ledgerThread = "pay"

// bank is the outside system: a log of the charges made, by key.
type bank string

func (b bank) charge(key, input string) error {
	f, err := os.OpenFile(string(b), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "charge %s %s\n", key, input)
	return errors.Join(err, f.Close())
}

// charges returns the bank's charges.
func (b bank) charges(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(string(b))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// bankTool charges through the bank, with the ledger's key.
type bankTool struct {
	bank  bank
	stop  func(ctx context.Context, point string)
	hook  bool
	asked chan effect.Call // the calls Reconcile was asked about
}

func (b *bankTool) Name() string        { return "charge_card" }
func (b *bankTool) Description() string { return "charges a card" }
func (b *bankTool) Call(ctx context.Context, input string) (string, error) {
	key, ok := effect.Key(ctx)
	if !ok {
		return "", errors.New("no ledger key")
	}
	if err := b.bank.charge(key, input); err != nil {
		return "", err
	}
	b.stop(ctx, "tool")
	return "charged " + input, nil
}

// reconcile looks the call up in the bank's log by its key.
func (b *bankTool) reconcile(ctx context.Context, call effect.Call) (effect.Outcome, error) {
	b.asked <- call
	data, err := os.ReadFile(string(b.bank))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return effect.Outcome{}, err
	}
	if strings.Contains(string(data), "charge "+call.Key+" ") {
		return effect.Outcome{Applied: true, Result: "charged " + call.Input + " (found by key)"}, nil
	}
	return effect.Outcome{}, nil
}

// ledgerSaver opens the database of a crash test: a SQLite file, or the
// PostgreSQL schema that db names after "pg:".
func ledgerSaver(t *testing.T, db string) checkpoint.Saver {
	t.Helper()
	if schema, ok := strings.CutPrefix(db, "pg:"); ok {
		saver := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(schema))
		require.NoError(t, saver.Migrate(t.Context()))
		return saver
	}
	saver, err := sqlite.Open(db)
	require.NoError(t, err)
	t.Cleanup(func() { saver.Close() })
	return saver
}

// ledgerBackends returns, by name, the database of each backend a crash
// test runs on: SQLite, and PostgreSQL with STATEGRAPH_POSTGRES_DSN.
func ledgerBackends(t *testing.T) map[string]string {
	out := map[string]string{"sqlite": filepath.Join(t.TempDir(), "ledger.db")}
	if os.Getenv("STATEGRAPH_POSTGRES_DSN") != "" {
		out["postgres"] = "pg:" + pgtest.Schema(t)
	}
	return out
}

func ledgerGraph(t *testing.T, db string, tool *bankTool) *graph.Compiled[payState] {
	t.Helper()
	saver := ledgerSaver(t, db)
	var opts []effect.Option
	if tool.hook {
		opts = append(opts, effect.WithReconcile(effect.ReconcileFunc(tool.reconcile)))
	}
	w := effect.Wrap(tool, opts...)
	pay := func(ctx context.Context, s payState) (state.Update[payState], error) {
		out, err := w.Call(ctx, "10 EUR")
		if err != nil {
			return state.Update[payState]{}, err
		}
		tool.stop(ctx, "after")
		return state.Writes(resultField.Set(out)), nil
	}
	c, err := graph.New(schema).AddNode("pay", pay).AddEdge(graph.Start, "pay").
		Compile(graph.WithCheckpointer(saver), graph.WithLease(time.Second))
	require.NoError(t, err)
	return c
}

// TestLedgerChild is the child process of the ledger's crash tests; it
// does nothing in a normal test run.
func TestLedgerChild(t *testing.T) {
	db, log, point := os.Getenv("STATEGRAPH_LEDGER_DB"), os.Getenv("STATEGRAPH_LEDGER_BANK"), os.Getenv("STATEGRAPH_LEDGER_POINT")
	if db == "" {
		t.Skip("child process of the ledger's crash tests")
	}
	stop := func(ctx context.Context, p string) {
		if p == point {
			fmt.Println("at", p)
			<-ctx.Done() // killed here: the run's context never ends
		}
	}
	c := ledgerGraph(t, db, &bankTool{bank: bank(log), stop: stop})
	_, err := c.Invoke(context.Background(), input, graph.WithThread(ledgerThread))
	require.NoError(t, err)
}

// killAt runs a child that stops at point and kills it there.
func killAt(t *testing.T, db, log, point string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerChild$", "-test.v")
	cmd.Env = append(os.Environ(), "STATEGRAPH_LEDGER_DB="+db, "STATEGRAPH_LEDGER_BANK="+log, "STATEGRAPH_LEDGER_POINT="+point)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	var said []string
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == "at "+point {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			require.Error(t, cmd.Wait())
			return
		}
		said = append(said, lines.Text())
	}
	_ = cmd.Wait()
	t.Fatalf("the child never reached %s; it said:\n%s", point, strings.Join(said, "\n"))
}

func noStop(context.Context, string) {}

// onEachBackend runs test, in parallel, on each backend of ledgerBackends
// with a bank log of its own; not with -short, since the tests start
// child processes.
func onEachBackend(t *testing.T, test func(t *testing.T, db, log string)) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	for name, db := range ledgerBackends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, db, filepath.Join(t.TempDir(), "bank.log"))
		})
	}
}

func TestAKilledCallIsNeverRunAgainWithoutAnAnswer(t *testing.T) {
	onEachBackend(t, func(t *testing.T, db, log string) {
		killAt(t, db, log, "tool")
		require.Len(t, bank(log).charges(t), 1)

		c := ledgerGraph(t, db, &bankTool{bank: bank(log), stop: noStop})
		_, err := c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread(ledgerThread), graph.WaitForThread())
		doubt := inDoubtOf(t, err)
		require.Equal(t, "charge_card", doubt.Call.Tool)
		require.Equal(t, "10 EUR", doubt.Call.Input)
		require.Contains(t, bank(log).charges(t)[0], doubt.Call.Key, "the interrupt shows the key the bank saw")
		require.Len(t, bank(log).charges(t), 1, "the in-doubt call did not run again")

		// Asked again (another process, say), it still does not run.
		_, err = c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread(ledgerThread))
		inDoubtOf(t, err)
		require.Len(t, bank(log).charges(t), 1)

		got, err := c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread(ledgerThread),
			graph.Resume(effect.Decision{Action: effect.Confirm, Result: "charged 10 EUR (confirmed)"}))
		require.NoError(t, err)
		require.Equal(t, "charged 10 EUR (confirmed)", got.Result)
		require.Len(t, bank(log).charges(t), 1, "confirmed: charged once")
	})
}

func TestAKilledCallGoesToItsReconcileHook(t *testing.T) {
	onEachBackend(t, func(t *testing.T, db, log string) {
		killAt(t, db, log, "tool")

		tool := &bankTool{bank: bank(log), stop: noStop, hook: true, asked: make(chan effect.Call, 1)}
		c := ledgerGraph(t, db, tool)
		got, err := c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread(ledgerThread), graph.WaitForThread())
		require.NoError(t, err)
		require.Equal(t, "charged 10 EUR (found by key)", got.Result)
		require.Equal(t, "charge_card", (<-tool.asked).Tool)
		require.Len(t, bank(log).charges(t), 1, "reconciled, not charged again")
	})
}

func TestAKilledNodeAfterItsCallEndedReadsTheLedger(t *testing.T) {
	onEachBackend(t, func(t *testing.T, db, log string) {
		killAt(t, db, log, "after")

		tool := &bankTool{bank: bank(log), stop: noStop, hook: true, asked: make(chan effect.Call, 1)}
		c := ledgerGraph(t, db, tool)
		got, err := c.Invoke(t.Context(), state.Update[payState]{}, graph.WithThread(ledgerThread), graph.WaitForThread())
		require.NoError(t, err)
		require.Equal(t, "charged 10 EUR", got.Result, "the result recorded before the kill")
		require.Empty(t, tool.asked, "an ended call is not in doubt")
		require.Len(t, bank(log).charges(t), 1)
	})
}
