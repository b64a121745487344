// Payments shows effects that survive a crash: a node charges an account
// in the same SQLite transaction as its step's saved writes
// (graph.Transact), and a side-effecting tool, which e-mails a receipt,
// goes through the ledger of package effect. The program runs an order in
// a child process that kills itself with SIGKILL right after the e-mail
// went out and before the tool returned; then it resumes the order in this
// process, from the same database file:
//
//	go run ./examples/payments            # in a temporary directory
//	go run ./examples/payments -db pay.db # keep the database (a new order each time)
//
// The resume does not charge the account again (the charge committed with
// its record), and does not e-mail the receipt again: the call is in
// doubt, and the tool's reconcile hook finds the e-mail in the outbox by
// the call's idempotency key. With -no-reconcile the tool has no hook,
// and the run stops at an interrupt that shows the call and asks a person
// to confirm, retry or skip; the program answers "confirm".
//
// Flags:
//
//	-db PATH        the SQLite file of the accounts, the outbox and the checkpoints
//	-no-reconcile   no reconcile hook: a person (scripted) answers the in-doubt call
//
// Exit status: 0 when the order completed with one charge and one e-mail;
// 1 when it failed; 2 for bad flags.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/effect"
	"github.com/stategraph/stategraph/examples/internal/cli"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

const usage = `usage: payments [-db PATH] [-no-reconcile]

Charges an account in the checkpoint's transaction, e-mails a receipt
through the tool ledger, is killed (SIGKILL) after the e-mail, and
resumes: one charge, one e-mail.
`

// Order is the state: the order, the balance after its charge, and the
// result of the receipt tool.
type Order struct {
	ID      string
	Amount  int
	Balance int
	Receipt string
}

var (
	orderID = state.Value("order", func(o *Order) *string { return &o.ID })
	amount  = state.Value("amount", func(o *Order) *int { return &o.Amount })
	balance = state.Value("balance", func(o *Order) *int { return &o.Balance })
	receipt = state.Value("receipt", func(o *Order) *string { return &o.Receipt })
	schema  = state.NewSchema(orderID, amount, balance, receipt)
)

// childEnv tells a run of the program that it is the child to be killed.
const childEnv = "PAYMENTS_CHILD"

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("payments", flag.ContinueOnError)
	db := fs.String("db", "", "the SQLite file (default: a temporary one)")
	noHook := fs.Bool("no-reconcile", false, "no reconcile hook: a person answers the in-doubt call")
	if code, stop := cli.Parse(fs, usage, args, stdout, stderr); stop {
		return code
	}
	ctx := context.Background()
	if thread := os.Getenv(childEnv); thread != "" {
		if err := child(ctx, *db, thread, !*noHook); err != nil {
			fmt.Fprintln(stderr, "payments (child):", err)
			return 1
		}
		return 0
	}
	path := *db
	if path == "" {
		dir, err := os.MkdirTemp("", "payments")
		if err != nil {
			fmt.Fprintln(stderr, "payments:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "pay.db")
	}
	if err := run(ctx, path, !*noHook, stdout); err != nil {
		fmt.Fprintln(stderr, "payments:", err)
		return 1
	}
	return 0
}

// run places an order in a child process, which is killed after its
// e-mail, and resumes it here.
func run(ctx context.Context, path string, hook bool, out io.Writer) error {
	b, err := openBank(ctx, path)
	if err != nil {
		return err
	}
	defer b.close()
	thread := fmt.Sprintf("order-%d", time.Now().UnixNano())
	before, err := b.balance(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "account balance: %d\n", before)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"-db", path}
	if !hook {
		args = append(args, "-no-reconcile")
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), childEnv+"="+thread)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return fmt.Errorf("the child was to be killed by SIGKILL, it ended with %v", err)
	}
	fmt.Fprintln(out, "child process killed by SIGKILL after the e-mail went out")

	c, err := b.compile(hook, nil)
	if err != nil {
		return err
	}
	o, err := c.Invoke(ctx, state.Update[Order]{}, graph.WithThread(thread), graph.WaitForThread())
	var ie *graph.InterruptError
	if errors.As(err, &ie) {
		doubt, perr := graph.Payload[effect.InDoubt](ie.Interrupts[0])
		if perr != nil {
			return perr
		}
		fmt.Fprintf(out, "in doubt: %s\nperson: confirm\n", doubt.Question)
		o, err = c.Invoke(ctx, state.Update[Order]{}, graph.WithThread(thread),
			graph.Resume(effect.Decision{Action: effect.Confirm, Result: "receipt sent (confirmed by a person)"}))
	}
	if err != nil {
		return err
	}
	after, err := b.balance(ctx)
	if err != nil {
		return err
	}
	mails, err := b.outbox(ctx, thread)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "resumed: balance %d (charged %d once), receipt: %s\n", after, before-after, o.Receipt)
	fmt.Fprintf(out, "e-mails sent for the order: %d\n", mails)
	if before-after != o.Amount || mails != 1 || o.Balance != after {
		return fmt.Errorf("the order was not applied exactly once: charged %d of %d, %d e-mails", before-after, o.Amount, mails)
	}
	return nil
}

// child places the order on thread and is killed after the e-mail.
func child(ctx context.Context, path, thread string, hook bool) error {
	b, err := openBank(ctx, path)
	if err != nil {
		return err
	}
	defer b.close()
	kill := func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	c, err := b.compile(hook, kill)
	if err != nil {
		return err
	}
	_, err = c.Invoke(ctx, state.Writes(orderID.Set(thread), amount.Set(25)), graph.WithThread(thread))
	return err
}

// bank is the database of the accounts and the outbox, which also holds
// the checkpoints.
type bank struct {
	db    *sql.DB
	saver *sqlite.Saver
}

func openBank(ctx context.Context, path string) (*bank, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO accounts VALUES ('ana', 100)`,
		`CREATE TABLE IF NOT EXISTS outbox (key TEXT PRIMARY KEY, thread TEXT NOT NULL, body TEXT NOT NULL)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	}
	saver, err := sqlite.New(db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &bank{db: db, saver: saver}, nil
}

func (b *bank) close() {
	b.saver.Close()
	b.db.Close()
}

func (b *bank) balance(ctx context.Context) (int, error) {
	var n int
	return n, b.db.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = 'ana'`).Scan(&n)
}

func (b *bank) outbox(ctx context.Context, thread string) (int, error) {
	var n int
	return n, b.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE thread = ?`, thread).Scan(&n)
}

// compile builds charge → notify. kill, when set, is called by the
// receipt tool after the e-mail went out.
func (b *bank) compile(hook bool, kill func()) (*graph.Compiled[Order], error) {
	mail := &mailer{db: b.db, kill: kill}
	var opts []effect.Option
	if hook {
		opts = append(opts, effect.WithReconcile(effect.ReconcileFunc(mail.reconcile)))
	}
	send := effect.Wrap(mail, opts...)

	charge := func(ctx context.Context, o Order) (state.Update[Order], error) {
		left, err := graph.Transact(ctx, "charge", func(ctx context.Context) (int, error) {
			tx, _ := graph.Tx[*sql.Tx](ctx)
			if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - ? WHERE id = 'ana'`, o.Amount); err != nil {
				return 0, err
			}
			var left int
			return left, tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = 'ana'`).Scan(&left)
		})
		if err != nil {
			return state.Update[Order]{}, err
		}
		return state.Writes(balance.Set(left)), nil
	}
	notify := func(ctx context.Context, o Order) (state.Update[Order], error) {
		out, err := send.Call(ctx, fmt.Sprintf("to: ana@example.com; order %s: charged %d, balance %d", o.ID, o.Amount, o.Balance))
		if err != nil {
			return state.Update[Order]{}, err
		}
		return state.Writes(receipt.Set(out)), nil
	}
	return graph.New(schema).AddNode("charge", charge).AddNode("notify", notify).
		AddEdge(graph.Start, "charge").AddEdge("charge", "notify").
		Compile(graph.WithCheckpointer(b.saver), graph.WithLease(time.Second))
}

// mailer e-mails a receipt: it puts the message in the outbox under the
// ledger's idempotency key.
type mailer struct {
	db   *sql.DB
	kill func()
}

func (m *mailer) Name() string        { return "send_receipt" }
func (m *mailer) Description() string { return "e-mails the receipt of an order" }

func (m *mailer) Call(ctx context.Context, input string) (string, error) {
	key, _ := effect.Key(ctx)
	info, _ := graph.RunInfo(ctx)
	if _, err := m.db.ExecContext(ctx, `INSERT INTO outbox VALUES (?, ?, ?)`, key, info.ThreadID, input); err != nil {
		return "", err
	}
	if m.kill != nil {
		m.kill() // the e-mail went out; the tool never returns
	}
	return "receipt sent", nil
}

// reconcile finds an in-doubt e-mail in the outbox by its key.
func (m *mailer) reconcile(ctx context.Context, call effect.Call) (effect.Outcome, error) {
	var body string
	err := m.db.QueryRowContext(ctx, `SELECT body FROM outbox WHERE key = ?`, call.Key).Scan(&body)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return effect.Outcome{}, nil // never sent: the ledger sends it
	case err != nil:
		return effect.Outcome{}, err
	}
	return effect.Outcome{Applied: true, Result: "receipt sent (found in the outbox by its key: " + strings.SplitN(body, ";", 2)[0] + ")"}, nil
}
