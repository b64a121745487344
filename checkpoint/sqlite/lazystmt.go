package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// lazyStmt is a read statement that a cold read of the latest state does
// not use (a pinned checkpoint's row, the chains of many channels, the
// writes of a page of checkpoints): it is prepared on the read handle
// when first needed, not at Open, where preparing the three cost a new
// process about a fifth of its open and read (docs/performance.md, W7).
type lazyStmt struct {
	sql string

	mu     sync.Mutex
	stmt   *sql.Stmt
	wanted bool // used in a transaction before it was prepared
}

// get returns the statement, preparing it on db the first time. A
// statement that does not prepare is reported as Open reports one.
func (l *lazyStmt) get(ctx context.Context, st *stmts, db *sql.DB) (*sql.Stmt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stmt != nil {
		return l.stmt, nil
	}
	stmt, err := db.PrepareContext(ctx, l.sql)
	if err != nil {
		return nil, schemaMismatch(markCorrupt(fmt.Errorf("prepare %q: %w", l.sql, err)))
	}
	l.stmt = stmt
	st.listMu.Lock()
	st.lazy = append(st.lazy, stmt)
	st.listMu.Unlock()
	return stmt, nil
}

// inTx returns the statement l bound to tx, a read transaction. Not
// prepared yet, it is prepared on tx's own connection for tx alone
// (preparing it on the handle inside the transaction would open a
// second connection when the transaction holds the only one), and on
// the handle by the next call outside a transaction (warm).
func (l *lazyStmt) inTx(ctx context.Context, st *stmts, tx *sql.Tx) (*sql.Stmt, error) {
	l.mu.Lock()
	stmt := l.stmt
	l.wanted = stmt == nil
	l.mu.Unlock()
	if stmt != nil {
		return tx.StmtContext(ctx, stmt), nil
	}
	st.wanted.Store(true)
	stmt, err := tx.PrepareContext(ctx, l.sql)
	if err != nil {
		return nil, schemaMismatch(markCorrupt(fmt.Errorf("prepare %q: %w", l.sql, err)))
	}
	return stmt, nil
}

// lazies are the lazily prepared statements.
func (st *stmts) lazies() [3]*lazyStmt { return [3]*lazyStmt{&st.getByID, &st.chain, &st.writesPage} }

// initLazy sets the lazily prepared statements' SQL.
func (st *stmts) initLazy() {
	st.getByID.sql, st.chain.sql, st.writesPage.sql = sqlGetByID, sqlChain, sqlWritesPage
}

// warm prepares on the read handle, before a read transaction begins,
// the statements an earlier transaction had to prepare for itself.
func (st *stmts) warm(ctx context.Context) error {
	if !st.wanted.Swap(false) {
		return nil
	}
	for _, l := range st.lazies() {
		l.mu.Lock()
		wanted := l.wanted
		l.mu.Unlock()
		if wanted {
			if _, err := l.get(ctx, st, st.rdb); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeLazy closes the lazily prepared statements.
func (st *stmts) closeLazy() []error {
	var errs []error
	st.listMu.Lock()
	for _, s := range st.lazy {
		errs = append(errs, s.Close())
	}
	st.lazy = nil
	st.listMu.Unlock()
	for _, l := range st.lazies() {
		l.mu.Lock()
		l.stmt = nil
		l.mu.Unlock()
	}
	return errs
}
