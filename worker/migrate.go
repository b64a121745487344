package worker

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/stategraph/stategraph/internal/migrate"
)

// migrations of the runs table are applied in order; migration i has
// version i+1. Append new ones; never edit one that has shipped.
var migrations = []string{
	// 1: the runs table. seq orders the runs of a thread (strategy
	// Enqueue runs them in this order); the partial index finds the
	// active runs of a thread.
	`
CREATE TABLE IF NOT EXISTS {runs} (
	run_id           text COLLATE "C" PRIMARY KEY,
	seq              bigserial NOT NULL,
	thread_id        text COLLATE "C" NOT NULL,
	graph            text NOT NULL,
	status           text NOT NULL CHECK (status IN ('pending', 'running', 'success', 'error', 'interrupted', 'cancelled')),
	strategy         text NOT NULL,
	job_id           bigint,
	attempt          integer NOT NULL DEFAULT 0,
	cancel_requested boolean NOT NULL DEFAULT false,
	cancel_reason    text,
	result           jsonb,
	interrupts       jsonb,
	error            text,
	error_code       text,
	created_at       timestamptz NOT NULL DEFAULT now(),
	updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS {runs_active_idx} ON {runs} (thread_id, seq) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS {runs_thread_idx} ON {runs} (thread_id, created_at);
`,
	// 2: answers pins a resume run's positional answer to the interrupt it
	// answered (by id), so that a retry never gives it to another one; the
	// partial index serves PruneRuns.
	`
ALTER TABLE {runs} ADD COLUMN IF NOT EXISTS answers jsonb;
CREATE INDEX IF NOT EXISTS {runs_ended_idx} ON {runs} (updated_at) WHERE status IN ('success', 'error', 'interrupted', 'cancelled');
`,
	// 3: workers holds a row per started worker, refreshed by its
	// heartbeat (the database's clock decides who is silent); followers
	// says which runs someone follows, so that only their checkpoints are
	// notified; rollback_from is where a run with the Rollback strategy
	// forks the thread (the checkpoint before the runs it rolled back; ''
	// for none: the thread starts afresh).
	`
CREATE TABLE IF NOT EXISTS {workers} (
	worker_id    text COLLATE "C" PRIMARY KEY,
	queue        text NOT NULL,
	started_at   timestamptz NOT NULL DEFAULT now(),
	heartbeat_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS {followers} (
	run_id     text COLLATE "C" NOT NULL,
	follower   text COLLATE "C" NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (run_id, follower)
);
ALTER TABLE {runs} ADD COLUMN IF NOT EXISTS rollback_from text;
`,
	// 4: process names the process of a worker (internal/procid), so
	// that a worker started on the same machine knows at once that one
	// whose process has ended is dead, rather than after its silence.
	`
ALTER TABLE {workers} ADD COLUMN IF NOT EXISTS process text;
`,
}

// SchemaVersion is the version of the runs table this package migrates
// to.
const SchemaVersion = 4

// Migrate creates or upgrades everything the Client needs in the
// database: the schema (WithSchema), River's tables (rivermigrate, up to
// the version this River needs), the stategraph_runs table, and the
// checkpoint tables when the Saver has a Migrate method. It is
// idempotent, and safe when several processes call it at once: it holds a
// session advisory lock whose key is fixed for the schema while River's
// migrations (each in its own transaction, as some of them must be) and
// then ours (in one transaction) run, all on one connection.
func (c *Client) Migrate(ctx context.Context) error {
	if err := c.migrate(ctx); err != nil {
		return fmt.Errorf("worker: migrate: %w", err)
	}
	if m, ok := c.saver.(interface{ Migrate(context.Context) error }); ok {
		if err := m.Migrate(ctx); err != nil {
			return fmt.Errorf("worker: migrate checkpoints: %w", err)
		}
	}
	return nil
}

func (c *Client) migrate(ctx context.Context) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(c.pool), &rivermigrate.Config{Schema: c.schema, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	unlock, err := migrate.SessionLock(ctx, conn, c.lock)
	if err != nil {
		return err
	}
	defer unlock()
	if c.schema != "" {
		if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{c.schema}.Sanitize()); err != nil {
			return err
		}
	}
	// River's migrations one by one, each in its own transaction (some
	// add enum values that a later one uses), on the locked connection.
	// MigrateTx is deprecated for batching several migrations in one
	// transaction; with MaxSteps 1 it batches none, and it is the only way
	// to run them on the connection that holds the advisory lock.
	for {
		var res *rivermigrate.MigrateResult
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var err error
			res, err = migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
			return err
		})
		if err != nil {
			return fmt.Errorf("river: %w", err)
		}
		if len(res.Versions) == 0 {
			break
		}
	}
	// Ours in one transaction on the same connection: its transaction lock
	// on the same key is granted at once (advisory locks are re-entrant
	// within a session).
	return c.migrations().Up(ctx, conn)
}

// migrations is the migration set of the runs table.
func (c *Client) migrations() migrate.Set {
	return migrate.Set{Table: c.t.migrations, Lock: c.lock, Steps: migrations, Expand: c.expand}
}

func (c *Client) expand(sql string) string {
	return strings.NewReplacer(
		"{runs}", c.t.runs,
		"{workers}", c.t.workers,
		"{followers}", c.t.followers,
		"{runs_active_idx}", pgx.Identifier{"stategraph_runs_active_idx"}.Sanitize(),
		"{runs_thread_idx}", pgx.Identifier{"stategraph_runs_thread_idx"}.Sanitize(),
		"{runs_ended_idx}", pgx.Identifier{"stategraph_runs_ended_idx"}.Sanitize(),
	).Replace(sql)
}

// checkSchema fails when the runs table is older than SchemaVersion (or
// missing), naming the versions and the remedy.
func (c *Client) checkSchema(ctx context.Context) error {
	current, err := c.migrations().Version(ctx, c.pool)
	if err != nil {
		return fmt.Errorf("worker: start: read the schema version (has Migrate run?): %w", err)
	}
	if current < SchemaVersion {
		return fmt.Errorf("worker: start: the runs table is at schema version %d, this worker needs %d: call Migrate first", current, SchemaVersion)
	}
	return nil
}
