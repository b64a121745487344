package sqlite

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"

	"github.com/stategraph/stategraph/checkpoint"
)

// corruptError names the checkpoint whose stored data could not be read.
func corruptError(thread, ns, id, format string, args ...any) error {
	return fmt.Errorf("sqlite: thread %q namespace %q checkpoint %q: %s: %w",
		thread, ns, id, fmt.Sprintf(format, args...), checkpoint.ErrCorrupt)
}

// notFoundError names what was not found.
func notFoundError(cfg checkpoint.Config) error {
	if cfg.CheckpointID == "" {
		return fmt.Errorf("sqlite: thread %q namespace %q has no checkpoint: %w",
			cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
	}
	return fmt.Errorf("sqlite: thread %q namespace %q has no checkpoint %q: %w",
		cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
}

// conflictError names the thread and the two heads.
func conflictError(thread, ns, expected, actual string) error {
	return fmt.Errorf("sqlite: thread %q namespace %q: expected head %q, actual head %q: %w",
		thread, ns, expected, actual, checkpoint.ErrConflict)
}

// SQLite's primary result codes for a damaged file.
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT: "database disk image is malformed"
	sqliteNotADB  = 26 // SQLITE_NOTADB: "file is not a database"
)

// markCorrupt makes an error of SQLite about a damaged file (SQLITE_CORRUPT
// or SQLITE_NOTADB, extended codes included) wrap checkpoint.ErrCorrupt.
func markCorrupt(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) || errors.Is(err, checkpoint.ErrCorrupt) {
		return err
	}
	if c := se.Code() & 0xff; c == sqliteCorrupt || c == sqliteNotADB {
		return fmt.Errorf("%w: the database file is damaged: %w", err, checkpoint.ErrCorrupt)
	}
	if se.Code()&0xff == sqliteError && strings.Contains(se.Error(), "malformed JSON") {
		// A JSON column a query reads in SQL (a metadata filter) holds
		// what this package never writes.
		return fmt.Errorf("%w: a stored JSON column is damaged: %w", err, checkpoint.ErrCorrupt)
	}
	return err
}

// sqliteError is SQLite's generic error code ("SQL logic error"), which
// is also what a statement over tables that lost a column gets.
const sqliteError = 1

// schemaMismatch makes an error preparing this package's statements on a
// database migrated to the current version wrap checkpoint.ErrCorrupt:
// the tables its schema_migrations vouch for lack a table or a column.
func schemaMismatch(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteError || errors.Is(err, checkpoint.ErrCorrupt) {
		return err
	}
	return fmt.Errorf("the tables do not match the schema version the database records (%d): %w: %w", len(steps), err, checkpoint.ErrCorrupt)
}
