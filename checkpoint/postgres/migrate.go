package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/internal/migrate"
)

// migrations are applied in order; migration i has version i+1. Append
// new ones; never edit one that has shipped. "{heads}" and the like are
// replaced by the table names.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE IF NOT EXISTS {heads} (
	thread_id text COLLATE "C" NOT NULL,
	ns        text COLLATE "C" NOT NULL,
	head      text COLLATE "C" NOT NULL,
	PRIMARY KEY (thread_id, ns)
);
CREATE TABLE IF NOT EXISTS {checkpoints} (
	thread_id  text COLLATE "C" NOT NULL,
	ns         text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL,
	parent_id  text COLLATE "C",
	created_at timestamptz NOT NULL,
	versions   jsonb NOT NULL,
	metadata   jsonb NOT NULL,
	filter     jsonb NOT NULL,
	PRIMARY KEY (thread_id, ns, id)
);
CREATE INDEX IF NOT EXISTS {checkpoints_filter_idx} ON {checkpoints} USING gin (filter jsonb_path_ops);
CREATE TABLE IF NOT EXISTS {blobs} (
	thread_id text COLLATE "C" NOT NULL,
	ns        text COLLATE "C" NOT NULL,
	channel   text COLLATE "C" NOT NULL,
	version   text COLLATE "C" NOT NULL,
	data      bytea,
	delta     boolean NOT NULL DEFAULT false,
	base      text COLLATE "C" NOT NULL DEFAULT '',
	PRIMARY KEY (thread_id, ns, channel, version)
);
CREATE TABLE IF NOT EXISTS {writes} (
	thread_id     text COLLATE "C" NOT NULL,
	ns            text COLLATE "C" NOT NULL,
	checkpoint_id text COLLATE "C" NOT NULL,
	task_id       text COLLATE "C" NOT NULL,
	idx           integer NOT NULL,
	channel       text COLLATE "C" NOT NULL,
	value         bytea,
	PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx),
	FOREIGN KEY (thread_id, ns, checkpoint_id) REFERENCES {checkpoints} (thread_id, ns, id) ON DELETE CASCADE
);
`,
	// 2: integrity columns. Every row gets the checksum of its columns;
	// a checkpoint also records the head it replaced (prev) and the number
	// of its pending writes (nwrites). NULL in rows written before, which
	// read unchecked.
	`
ALTER TABLE {checkpoints}
	ADD COLUMN IF NOT EXISTS prev    text COLLATE "C",
	ADD COLUMN IF NOT EXISTS nwrites integer,
	ADD COLUMN IF NOT EXISTS crc     bigint;
ALTER TABLE {blobs} ADD COLUMN IF NOT EXISTS crc bigint;
ALTER TABLE {writes} ADD COLUMN IF NOT EXISTS crc bigint;
`,
	// 3: thread leases (checkpoint.Leaser), timed by the server's clock.
	`
CREATE TABLE IF NOT EXISTS {leases} (
	thread_id text COLLATE "C" NOT NULL PRIMARY KEY,
	token     text COLLATE "C" NOT NULL,
	holder    text NOT NULL,
	since     timestamptz NOT NULL,
	expires   timestamptz NOT NULL
);
`,
	// 4: blobs keyed by version before channel, as in the SQLite saver:
	// the runtime names a version after the checkpoint that made it, so
	// a step's new blobs are neighbours in the index (one leaf page to
	// write, not one per changed channel). Lookups give both columns and
	// are unchanged. The index is rebuilt once, in the migration's
	// transaction.
	`
ALTER TABLE {blobs} DROP CONSTRAINT IF EXISTS stategraph_blobs_pkey,
	ADD CONSTRAINT stategraph_blobs_pkey PRIMARY KEY (thread_id, ns, version, channel);
`,
}

// SchemaVersion is the schema version this package migrates to.
const SchemaVersion = 4

// Migrate creates or upgrades the tables to SchemaVersion. It is
// idempotent, and safe when several processes call it at once: it runs in
// one transaction that first takes a transaction-scoped advisory lock
// (pg_advisory_xact_lock) on a key fixed for the schema, then applies the
// migrations that stategraph_migrations does not list yet. A database
// migrated by a newer version of this package is left as it is.
//
// A process that starts on tables already at SchemaVersion or later pays
// one round trip: Migrate first reads the version stategraph_migrations
// records, outside the lock, and stops there. Migrations only ever add
// versions, each in one committed transaction, so a version read there is
// one the tables have; anything else (an older version, no table yet, an
// error) takes the locked path above.
func (s *Saver) Migrate(ctx context.Context) error {
	set := s.migrations()
	if v, err := set.Version(ctx, s.pool); err == nil && v >= SchemaVersion {
		return nil
	}
	if err := set.Up(ctx, s.pool); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}

// migrations returns the migration set of the Saver's tables.
func (s *Saver) migrations() migrate.Set {
	return migrate.Set{Table: s.t.migrations, Schema: s.schema, Lock: s.lock, Steps: migrations, Expand: s.expand}
}

// expand replaces the table placeholders of a migration.
func (s *Saver) expand(sql string) string {
	idx := pgx.Identifier{"stategraph_checkpoints_filter_idx"}.Sanitize()
	return strings.NewReplacer(
		"{heads}", s.t.heads,
		"{checkpoints}", s.t.checkpoints,
		"{checkpoints_filter_idx}", idx,
		"{blobs}", s.t.blobs,
		"{writes}", s.t.writes,
		"{leases}", s.t.leases,
	).Replace(sql)
}
