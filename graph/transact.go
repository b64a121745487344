package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
)

// TxSaver is implemented by savers that can store a task's writes in a
// database transaction together with the caller's own rows:
// checkpoint/sqlite (the transaction is a *sql.Tx) and checkpoint/postgres
// (a pgx.Tx). Transact uses it.
type TxSaver interface {
	// PutWritesTx begins a transaction on the saver's database, calls fn
	// with it, stores the writes fn returns against the checkpoint cfg
	// names (as PutWrites would, stamped with taskID) in the same
	// transaction, and commits. An error of fn, or of storing, rolls
	// everything back and is returned. fn must use only the transaction
	// it is given: it runs holding the saver's write lock (SQLite), so a
	// call that writes through the saver from fn waits for itself.
	PutWritesTx(ctx context.Context, cfg checkpoint.Config, taskID string, fn func(tx any) ([]checkpoint.PendingWrite, error)) error
}

// ErrNoTx is wrapped by the error of Transact when the run cannot commit
// the node's rows with its saved writes: no checkpointer, a checkpointer
// that is not a TxSaver (checkpoint/encrypt forwards its wrapped saver's
// transactions), or DurabilityExit, which stores nothing until the run
// ends.
var ErrNoTx = errors.New("graph: Transact needs a transactional checkpointer")

// txKey is the context key of the transaction Transact runs fn in.
type txKey struct{}

// Tx returns the database transaction of the Transact call running in
// ctx, as type T (*sql.Tx for checkpoint/sqlite, pgx.Tx for
// checkpoint/postgres), and false outside one or for another type.
func Tx[T any](ctx context.Context) (T, bool) {
	tx, ok := ctx.Value(txKey{}).(T)
	return tx, ok
}

// Transact runs fn once per key for the task the node runs as, in a
// transaction of the checkpoint database that also stores fn's result as
// a saved write of the task, so the rows fn writes (through Tx(ctx)) and
// the record that fn ran commit together or not at all. When the same
// task runs again — a retry, a resume after a crash, an error or an
// interrupt — Transact returns the saved result without calling fn: a
// crash before the commit leaves neither the rows nor the record (fn runs
// again on resume), a crash after it leaves both (fn does not).
//
// It is Durable whose save is the node's own transaction; keys are shared
// with Durable's. The rules:
//   - Parallel tasks each commit their own transaction, with their own
//     record; the database orders them (SQLite one at a time).
//   - Under DurabilityAsync the call waits for the checkpoint its task runs
//     from to be stored before it commits, so the record never refers to a
//     checkpoint that is not there: such a step is synchronous.
//   - DurabilityExit stores nothing until the run ends, so it cannot commit
//     rows with a record: Transact fails with ErrNoTx.
//   - An error of fn rolls its transaction back and is returned; nothing is
//     saved, and the next call (a retry) runs fn again.
//   - fn must not call Interrupt, Durable or a ledger-wrapped tool: it holds
//     the database's write lock. Call them before or after Transact.
//   - A replay from a past checkpoint (a fork) runs new tasks, and fn again.
//
// Without a checkpointer, with one that is not a TxSaver, or outside a
// node, Transact fails with ErrNoTx: there is no transaction to give fn.
func Transact[T any](ctx context.Context, key string, fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	sc := scopeOf(ctx)
	if sc == nil || sc.parent == nil || sc.parent.store == nil {
		return zero, fmt.Errorf("%w: call it in a node of a graph compiled WithCheckpointer", ErrNoTx)
	}
	store := sc.parent.store
	ts, ok := store.(txStore)
	if !ok {
		return zero, fmt.Errorf("%w: node %q, step %d", ErrNoTx, sc.node, sc.step)
	}
	ds, err := sc.durableOf(store)
	if err != nil {
		return zero, err
	}
	return once(ctx, sc, ds, store.serializer(), key, "Transact", func() (T, error) {
		return runTransact(ctx, sc, ts, ds, key, fn)
	})
}

// runTransact runs fn in a transaction that also saves its result.
func runTransact[T any](ctx context.Context, sc *taskScope, ts txStore, ds *durableState, key string, fn func(context.Context) (T, error)) (T, error) {
	var v T
	var data []byte
	err := ts.putDurableTx(sc, func(tx any) ([]checkpoint.PendingWrite, error) {
		var err error
		if v, err = fn(context.WithValue(ctx, txKey{}, tx)); err != nil {
			return nil, err
		}
		if data, err = ts.serializer().Marshal(durableRecord[T]{Key: key, Value: v}); err != nil {
			return nil, fmt.Errorf("graph: node %q, step %d: encode the result of Transact %q: %w", sc.node, sc.step, key, err)
		}
		ds.mu.Lock()
		idx := ds.index(key)
		ds.mu.Unlock()
		return []checkpoint.PendingWrite{{TaskID: sc.taskID, Index: idx, Channel: durableChannel, Value: data}}, nil
	})
	if err != nil {
		return v, err
	}
	ds.mu.Lock()
	ds.saved[key] = data
	ds.mu.Unlock()
	return v, nil
}

// txStore saves a task's Transact results: the run's persist.
type txStore interface {
	durableStore
	putDurableTx(sc *taskScope, fn func(tx any) ([]checkpoint.PendingWrite, error)) error
}

func (p *persist[S]) putDurableTx(sc *taskScope, fn func(tx any) ([]checkpoint.PendingWrite, error)) error {
	ts, ok := p.saver.(TxSaver)
	switch {
	case !ok:
		return fmt.Errorf("%w: node %q, step %d: %T does not store writes in a transaction (checkpoint/sqlite and checkpoint/postgres do)", ErrNoTx, sc.node, sc.step, p.saver)
	case p.r.durability == DurabilityExit || p.unsaved:
		return fmt.Errorf("%w: node %q, step %d: DurabilityExit stores nothing until the run ends", ErrNoTx, sc.node, sc.step)
	case p.dry || p.id == "" || sc.taskID == "":
		return fmt.Errorf("%w: node %q, step %d: the task has no stored checkpoint to save against", ErrNoTx, sc.node, sc.step)
	}
	if err := p.r.lease.err(); err != nil {
		return err
	}
	if err := p.awaitInflight(); err != nil {
		return err
	}
	cfg := p.cfg
	cfg.CheckpointID = p.id
	ctx, cancel := p.saveCtx()
	defer cancel()
	if err := ts.PutWritesTx(ctx, cfg, sc.taskID, fn); err != nil {
		return fmt.Errorf("graph: node %q, step %d: transaction: %w", sc.node, sc.step, err)
	}
	return nil
}
