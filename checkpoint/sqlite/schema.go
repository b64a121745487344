package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	migrations "github.com/stategraph/stategraph/internal/migrate/sqlmigrate"
)

// steps are the schema changes, in order; step i brings the
// schema to version i+1. Append only: an applied migration never changes.
var steps = []string{
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
	// 4: blobs keyed by version before channel. The lookups are the
	// same (both are always given); what changes is where a step's new
	// blobs land. The runtime names a version after the checkpoint that
	// made it, and ids grow, so the blobs of one step are neighbours at
	// the end of their thread's range: one B-tree page to write per
	// commit rather than one per changed channel.
	`
CREATE TABLE blobs_v4 (
	thread_id TEXT    NOT NULL,
	ns        TEXT    NOT NULL,
	channel   TEXT    NOT NULL,
	version   TEXT    NOT NULL,
	delta     INTEGER NOT NULL DEFAULT 0,
	base      TEXT    NOT NULL DEFAULT '',
	crc       INTEGER NOT NULL,
	data      BLOB,
	PRIMARY KEY (thread_id, ns, version, channel)
) WITHOUT ROWID;
INSERT INTO blobs_v4 (thread_id, ns, channel, version, delta, base, crc, data)
	SELECT thread_id, ns, channel, version, delta, base, crc, data FROM blobs;
DROP TABLE blobs;
ALTER TABLE blobs_v4 RENAME TO blobs;
`,
	// 5: small values in their checkpoint's row (see inline.go): a step
	// that changes small values writes one row of one B-tree. Rows
	// written before keep NULL, and their values stay in blobs.
	`
ALTER TABLE checkpoints ADD COLUMN inline BLOB;
`,
	// 6: the versions column of a new row is relative to the row's id
	// (codec.go, relVersion), which its crc kind says (cpRelKind): the
	// runtime names most versions after their checkpoint, so a step's
	// row is some 70 bytes shorter, and the checkpoints b-tree, whose
	// appends rewrite several pages at each split, splits less often.
	// Rows written before are read as they are; nothing is rewritten.
	// The version number keeps a release that reads whole versions off a
	// database that has relative ones.
	`
UPDATE schema_migrations SET version = version WHERE 0;
`,
}

// migrate applies the migrations db has not recorded in
// schema_migrations, each in its own write transaction, so that opening a
// database twice, or from two processes at once, applies each once. A
// database a newer release migrated is refused before anything is
// written (*migrate.NewerError). lockFirst takes the write lock first in
// each transaction, for a handle whose transactions are not IMMEDIATE.
func migrate(ctx context.Context, db *sql.DB, lockFirst bool) error {
	set := migrations.Set{Table: "schema_migrations", Steps: steps}
	if lockFirst {
		set.Lock = lockSQL
	}
	return set.Up(ctx, db)
}

// checkVersion returns an error unless db is at the schema version this
// release migrates to, for a database opened read-only (ReadOnly), which
// must not be migrated.
func checkVersion(ctx context.Context, db *sql.DB) error {
	set := migrations.Set{Table: "schema_migrations", Steps: steps}
	v, err := set.Version(ctx, db)
	switch {
	case err != nil:
		return fmt.Errorf("not a stategraph checkpoint database, or not readable: %w", err)
	case v > len(steps):
		return &migrations.NewerError{Version: v, Known: len(steps)}
	case v < len(steps):
		return fmt.Errorf("the database is at schema version %d and this release reads version %d: open it once for writing (without sqlite.ReadOnly) to migrate it", v, len(steps))
	}
	return nil
}

// openSchema makes sure the database at path holds this package's tables
// at this release's version, for Open: it refuses a file of another
// program, or one a newer release migrated, and migrates an older one
// (unless readOnly, when an older one is an error).
//
// A file already in WAL mode is checked on a read connection of rdb, in
// two queries: it is left as it was if it is not ours (the read handle
// cannot write, and its pragmas change nothing in a WAL file), and when it
// is at this version nothing else is done, so a reader never opens the
// write connection. Any other file is checked by checkForeign through a
// read-only connection of its own (Open's pragmas would switch it to WAL)
// and then migrated, or its version checked, on wdb.
func openSchema(ctx context.Context, path string, rdb, wdb *sql.DB, readOnly bool) error {
	if walFile(path) {
		current, err := checkOurs(ctx, rdb)
		if err != nil || current {
			return err
		}
	} else if err := checkForeign(ctx, path); err != nil {
		return err
	}
	if readOnly {
		return checkVersion(ctx, wdb)
	}
	return migrate(ctx, wdb, false)
}

// walFile reports whether the file at path is a SQLite database in WAL
// mode: its header's read and write versions (bytes 18 and 19) are 2.
func walFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	return string(h[:16]) == "SQLite format 3\x00" && h[18] == 2 && h[19] == 2
}

// checkOurs reads, on db, whether the database holds tables of another
// program (an error) and whether its schema is at this release's version
// (current). A database a newer release migrated is a
// *migrations.NewerError.
func checkOurs(ctx context.Context, db *sql.DB) (current bool, err error) {
	foreign, ours, err := tablesOf(ctx, db)
	if err != nil || len(foreign) > 0 {
		return false, errForeign(foreign, err)
	}
	if !ours {
		return false, nil
	}
	v, err := migrations.Set{Table: "schema_migrations", Steps: steps}.Version(ctx, db)
	switch {
	case err != nil:
		return false, err
	case v > len(steps):
		return false, &migrations.NewerError{Version: v, Known: len(steps)}
	}
	return v == len(steps), nil
}

// tablesOf lists the tables of db that are not this package's, and says
// whether schema_migrations is there.
func tablesOf(ctx context.Context, db *sql.DB) (foreign []string, ours bool, err error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, false, err
		}
		switch {
		case name == "schema_migrations":
			ours = true
		case !ownTables[name]:
			foreign = append(foreign, name)
		}
	}
	return foreign, ours, rows.Err()
}

// errForeign is the error of a database holding the tables foreign, or
// err when listing them failed.
func errForeign(foreign []string, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("not a stategraph checkpoint database: it holds tables of another program (%s); it was left as it was (to keep checkpoints in a database you share, open it yourself and use sqlite.New)", strings.Join(foreign, ", "))
}

// ownTables are the tables this package keeps in a file it opens.
var ownTables = map[string]bool{"schema_migrations": true, "checkpoints": true, "blobs": true, "writes": true, "leases": true}

// checkForeign returns an error when the file at path is a SQLite
// database of another program: one with tables that are not this
// package's. It reads the
// file through a read-only connection of its own, so such a file is left
// as it was (Open would switch it to WAL and add its tables). A missing
// or empty file, or one SQLite cannot read, is left to Open to report.
func checkForeign(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return nil
	}
	q := url.Values{}
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil
	}
	defer db.Close()
	foreign, _, err := tablesOf(ctx, db)
	if err != nil {
		return nil // left to Open to report
	}
	if len(foreign) > 0 {
		return errForeign(foreign, nil)
	}
	return nil
}
