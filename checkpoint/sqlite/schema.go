package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are the schema changes, in order; migration i brings the
// schema to version i+1. Append only: an applied migration never changes.
var migrations = []string{
	// 1: checkpoints, blobs, writes.
	`
CREATE TABLE checkpoints (
	thread_id  TEXT    NOT NULL,
	ns         TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	parent_id  TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL DEFAULT 0,
	versions   TEXT    NOT NULL,
	metadata   TEXT    NOT NULL,
	PRIMARY KEY (thread_id, ns, id)
) WITHOUT ROWID;

CREATE TABLE blobs (
	thread_id TEXT    NOT NULL,
	ns        TEXT    NOT NULL,
	channel   TEXT    NOT NULL,
	version   TEXT    NOT NULL,
	delta     INTEGER NOT NULL DEFAULT 0,
	base      TEXT    NOT NULL DEFAULT '',
	crc       INTEGER NOT NULL,
	data      BLOB,
	PRIMARY KEY (thread_id, ns, channel, version)
) WITHOUT ROWID;

CREATE TABLE writes (
	thread_id     TEXT    NOT NULL,
	ns            TEXT    NOT NULL,
	checkpoint_id TEXT    NOT NULL,
	task_id       TEXT    NOT NULL,
	idx           INTEGER NOT NULL,
	channel       TEXT    NOT NULL,
	crc           INTEGER NOT NULL,
	value         BLOB,
	PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx),
	FOREIGN KEY (thread_id, ns, checkpoint_id) REFERENCES checkpoints (thread_id, ns, id)
		ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
) WITHOUT ROWID;
`,
	// 2: integrity columns of the checkpoints: the crc of the row, the
	// head it replaced, and the number of its pending writes. NULL in
	// rows written before, which read unchecked.
	`
ALTER TABLE checkpoints ADD COLUMN prev TEXT;
ALTER TABLE checkpoints ADD COLUMN nwrites INTEGER;
ALTER TABLE checkpoints ADD COLUMN crc INTEGER;
`,
	// 3: thread leases (checkpoint.Leaser), times in Unix nanoseconds.
	`
CREATE TABLE leases (
	thread_id TEXT    NOT NULL PRIMARY KEY,
	token     TEXT    NOT NULL,
	holder    TEXT    NOT NULL,
	since     INTEGER NOT NULL,
	expires   INTEGER NOT NULL
) WITHOUT ROWID;
`,
}

// migrate applies the migrations db has not recorded in
// schema_migrations, each in its own write transaction, so that opening a
// database twice, or from two processes at once, applies each once.
func migrate(ctx context.Context, db *sql.DB, lockFirst bool) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	applied_at TEXT    NOT NULL
)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for i, m := range migrations {
		version := i + 1
		if err := applyMigration(ctx, db, lockFirst, version, m); err != nil {
			return fmt.Errorf("migration %d: %w", version, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, lockFirst bool, version int, ddl string) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if lockFirst {
		if _, err := tx.ExecContext(ctx, lockSQL); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
		version, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	return tx.Commit()
}
