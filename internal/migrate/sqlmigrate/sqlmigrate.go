// Package sqlmigrate applies the versioned schema migrations of the
// packages of this module that keep tables in SQLite (checkpoint/sqlite,
// store/sqlite) through database/sql. SQLite has no advisory locks: each
// step runs in a write transaction of its own, and a database a newer
// release migrated is refused with a *NewerError before anything is
// written. It imports nothing but the standard library, so a SQLite
// program does not link the PostgreSQL driver of package migrate.
package sqlmigrate

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Set is the migrations of one package's tables in a database reached
// through database/sql: SQLite, where there is no advisory lock and one
// writer at a time holds the whole file.
type Set struct {
	// Table records the applied versions (version INTEGER PRIMARY KEY,
	// applied_at TEXT). Up creates it when missing.
	Table string
	// Steps are the migrations in order: Steps[i] brings the tables to
	// version i+1. Append new ones; never edit one that has shipped.
	Steps []string
	// Lock, if set, runs first in each step's transaction, to take the
	// database's write lock before the version is read (a connection that
	// does not begin its transactions IMMEDIATE needs it).
	Lock string
}

// NewerError is the error of a database whose tables a newer release
// migrated: this program does not know their shape and must not write
// them.
type NewerError struct {
	Version int // the version the database is at
	Known   int // the latest version this program knows
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("the database is at schema version %d, newer than this program knows (%d): use a newer release", e.Version, e.Known)
}

// Up brings the tables to version len(s.Steps): it creates s.Table if it
// does not exist, refuses a database at a later version with a
// *NewerError before it writes anything, and applies each missing step in
// a transaction of its own (Lock first), recording it, so a concurrent Up
// in another process applies none twice. A failed step rolls back and its
// error names its version.
func (s Set) Up(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+s.Table+` (
	version    INTEGER PRIMARY KEY,
	applied_at TEXT    NOT NULL
)`); err != nil {
		return fmt.Errorf("create %s: %w", s.Table, err)
	}
	v, err := s.Version(ctx, db)
	if err != nil {
		return err
	}
	if v > len(s.Steps) {
		return &NewerError{Version: v, Known: len(s.Steps)}
	}
	for i := v; i < len(s.Steps); i++ {
		if err := s.apply(ctx, db, i+1, s.Steps[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	return nil
}

// Version returns the highest version s.Table records (0 for none).
func (s Set) Version(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM `+s.Table).Scan(&v); err != nil {
		return 0, fmt.Errorf("read %s: %w", s.Table, err)
	}
	return int(v.Int64), nil
}

func (s Set) apply(ctx context.Context, db *sql.DB, version int, step string) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if s.Lock != "" {
		if _, err := tx.ExecContext(ctx, s.Lock); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+s.Table+` WHERE version = ?`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return tx.Rollback() // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, step); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+s.Table+` (version, applied_at) VALUES (?, ?)`,
		version, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	return tx.Commit()
}
