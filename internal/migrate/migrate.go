package migrate

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Set is the migrations of one package's tables.
type Set struct {
	// Table records the applied versions: a quoted, possibly
	// schema-qualified name, as pgx.Identifier.Sanitize returns it. Up
	// creates it when missing.
	Table string
	// Schema, if set, is the PostgreSQL schema Up creates (if it does not
	// exist) before anything else.
	Schema string
	// Lock is the key of the advisory lock Up holds (see Key).
	Lock int64
	// Steps are the migrations in order: Steps[i] brings the tables to
	// version i+1. Append new ones; never edit one that has shipped.
	Steps []string
	// Expand, if set, rewrites a step before it runs (it replaces the
	// placeholders of table names, say).
	Expand func(sql string) string
}

// Beginner starts a transaction: a *pgxpool.Pool, a *pgxpool.Conn, a
// *pgx.Conn or a pgx.Tx (a savepoint).
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Querier runs a query: a pool, a connection or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Key returns the advisory lock key of the migrations of scope (a package
// path) in the PostgreSQL schema ("" for none). It is the FNV-1a hash of
// scope, a NUL and schema, so every process and release agrees on it.
func Key(scope, schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte(scope + "\x00" + schema))
	return int64(h.Sum64())
}

// Up brings the tables to version len(s.Steps). In one transaction on db
// it takes pg_advisory_xact_lock(s.Lock), creates s.Schema and s.Table if
// they do not exist, and applies, in order, each step after the highest
// version s.Table records, recording it. A failed step rolls back all of
// them, and its error names its version. A database at a later version
// (migrated by a newer release) is left as it is.
func (s Set) Up(ctx context.Context, db Beginner) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.Lock); err != nil {
			return err
		}
		if s.Schema != "" {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.Schema}.Sanitize()); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.Table+` (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return err
		}
		current, err := s.Version(ctx, tx)
		if err != nil {
			return err
		}
		for v := current + 1; v <= len(s.Steps); v++ {
			sql := s.Steps[v-1]
			if s.Expand != nil {
				sql = s.Expand(sql)
			}
			if _, err := tx.Exec(ctx, sql); err != nil {
				return fmt.Errorf("version %d: %w", v, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+s.Table+" (version) VALUES ($1)", v); err != nil {
				return fmt.Errorf("version %d: %w", v, err)
			}
		}
		return nil
	})
}

// Version returns the highest version s.Table records, 0 when it records
// none. It fails when the table does not exist.
func (s Set) Version(ctx context.Context, q Querier) (int, error) {
	var v int
	if err := q.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+s.Table).Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

// SessionLock takes the session advisory lock key on conn, waiting for
// it, and returns the function that releases it. Hold the connection
// until then: the lock belongs to its session. If the release fails, it
// closes the connection, which drops the lock. Up on the same connection
// with the same key does not wait: advisory locks are re-entrant within a
// session.
func SessionLock(ctx context.Context, conn *pgxpool.Conn, key int64) (unlock func(), err error) {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return nil, err
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
			conn.Conn().Close(uctx) //nolint:errcheck // closing the session drops the lock
		}
	}, nil
}
