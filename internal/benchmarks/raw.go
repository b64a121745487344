package benchmarks

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the driver the SQLite saver uses
)

// RawRowSize is the size of the row a raw commit inserts: about what a
// step of the chain stores (its checkpoint row and its changed values).
const RawRowSize = 600

// RawSQLite is the physical limit of a durable step on SQLite: a loop
// that inserts one row per transaction, through the same driver, in WAL
// mode at the same synchronous level as the saver it is compared with.
type RawSQLite struct {
	db   *sql.DB
	stmt *sql.Stmt
	row  []byte
}

// OpenRawSQLite creates (or opens) a database at path in WAL mode with
// the given synchronous level ("NORMAL" or "FULL") and a table for the
// raw rows. Close it when done.
func OpenRawSQLite(path, synchronous string) (*RawSQLite, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+synchronous+")")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("raw sqlite %q: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS raw (id INTEGER PRIMARY KEY, data BLOB NOT NULL)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("raw sqlite %q: create table: %w", path, err)
	}
	stmt, err := db.PrepareContext(ctx, `INSERT INTO raw (data) VALUES (?)`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("raw sqlite %q: prepare: %w", path, err)
	}
	return &RawSQLite{db: db, stmt: stmt, row: make([]byte, RawRowSize)}, nil
}

// Commit inserts one row in a transaction of its own and commits it.
func (r *RawSQLite) Commit(ctx context.Context) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, r.stmt).ExecContext(ctx, r.row); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (r *RawSQLite) Close() error {
	r.stmt.Close()
	return r.db.Close()
}

// RawPostgres is the physical limit of a durable step on PostgreSQL: one
// statement that inserts one row and commits (autocommit), one round trip.
type RawPostgres struct {
	pool  *pgxpool.Pool
	table string
	row   []byte
}

// NewRawPostgres creates a table for the raw rows in schema (which must
// exist) on pool's database.
func NewRawPostgres(ctx context.Context, pool *pgxpool.Pool, schema string) (*RawPostgres, error) {
	table := pgx.Identifier{schema, "raw_commit"}.Sanitize()
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (id bigserial PRIMARY KEY, data bytea NOT NULL)`); err != nil {
		return nil, fmt.Errorf("raw postgres: create table %s: %w", table, err)
	}
	return &RawPostgres{pool: pool, table: table, row: make([]byte, RawRowSize)}, nil
}

// Commit inserts one row and commits it, in one round trip.
func (r *RawPostgres) Commit(ctx context.Context) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO `+r.table+` (data) VALUES ($1)`, r.row)
	return err
}
