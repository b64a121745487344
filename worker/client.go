package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/migrate"
)

// DefaultQueue is the River queue runs go to unless WithQueue says
// otherwise.
const DefaultQueue = "stategraph"

// Client enqueues runs, executes them as a River worker (when it has a
// Registry) and reports on them. Many Clients in many processes share one
// database. It is safe for concurrent use.
type Client struct {
	pool     *pgxpool.Pool
	river    *river.Client[pgx.Tx]
	reg      *Registry
	saver    checkpoint.Saver
	schema   string
	t        tables
	lock     int64 // advisory lock key of Migrate
	queue    string
	workers  int
	snooze   time.Duration
	poll     time.Duration
	timeout  time.Duration
	riverCfg func(*river.Config)
}

// Option configures a Client.
type Option func(*Client)

// WithSchema puts River's tables and the runs table in the named
// PostgreSQL schema (created by Migrate). Without it, names resolve
// through the connection's search_path. Unless WithSaver says otherwise,
// the checkpoints go in the same schema.
func WithSchema(name string) Option { return func(c *Client) { c.schema = name } }

// WithQueue sets the River queue runs are enqueued on and worked from
// (default DefaultQueue). Workers of one queue must all register the
// graphs enqueued on it; use queues to split graphs between fleets.
func WithQueue(name string) Option { return func(c *Client) { c.queue = name } }

// WithWorkers sets how many runs the Client executes at once (River's
// MaxWorkers for the queue; default 10).
func WithWorkers(n int) Option { return func(c *Client) { c.workers = n } }

// WithSaver names the checkpointer the registered graphs use, which
// Follow reads a run's checkpoints from (default: a checkpoint/postgres
// Saver on the Client's pool, in the schema of WithSchema). Migrate
// migrates it too when it has a Migrate(context.Context) error method.
func WithSaver(s checkpoint.Saver) Option { return func(c *Client) { c.saver = s } }

// WithSnoozeInterval sets how long a run that waits for its thread
// (strategies Enqueue and Interrupt) sleeps between looks (default 1s).
func WithSnoozeInterval(d time.Duration) Option { return func(c *Client) { c.snooze = d } }

// WithPollInterval sets how often Follow reads a run when no notification
// arrives (default 1s): LISTEN/NOTIFY is best effort, polling is the
// fallback.
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.poll = d } }

// WithRunTimeout sets the longest one execution of a run may take before
// its context is cancelled (River's per-job timeout; default River's
// JobTimeout, one minute). An execution cut short is retried and resumes
// from its last checkpoint. It must be positive: River's rescuer never
// rescues a job without a timeout. Keep River's RescueStuckJobsAfter above
// it.
func WithRunTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRiverConfig adjusts the River configuration before the River client
// is made (retry policy, RescueStuckJobsAfter, JobTimeout, logger, fetch
// intervals, …). The Client sets Schema, Queues and Workers first.
func WithRiverConfig(f func(*river.Config)) Option { return func(c *Client) { c.riverCfg = f } }

// New returns a Client on pool. With a non-nil Registry it works runs of
// the registered graphs once started; with nil it only enqueues and
// reports (an insert-only client). Call Migrate once before use.
func New(pool *pgxpool.Pool, reg *Registry, opts ...Option) (*Client, error) {
	if pool == nil {
		return nil, errors.New("worker: New: nil pool")
	}
	c := &Client{pool: pool, reg: reg, queue: DefaultQueue, workers: 10, snooze: time.Second, poll: time.Second}
	for _, o := range opts {
		o(c)
	}
	if c.workers < 1 || c.snooze <= 0 || c.poll <= 0 || c.timeout < 0 {
		return nil, errors.New("worker: New: workers, snooze and poll intervals must be positive, and the run timeout not negative")
	}
	if c.saver == nil {
		var po []postgres.Option
		if c.schema != "" {
			po = append(po, postgres.WithSchema(c.schema))
		}
		c.saver = postgres.New(pool, po...)
	}
	c.t = newTables(c.schema)
	c.lock = migrate.Key("stategraph/worker", c.schema)

	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &runWorker{c: c}); err != nil {
		return nil, fmt.Errorf("worker: New: %w", err)
	}
	cfg := &river.Config{Schema: c.schema, Workers: workers}
	if reg != nil {
		cfg.Queues = map[string]river.QueueConfig{c.queue: {MaxWorkers: c.workers}}
	}
	if c.riverCfg != nil {
		c.riverCfg(cfg)
	}
	rc, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("worker: New: river: %w", err)
	}
	c.river = rc
	return c, nil
}

// Start starts working runs in the background, until Stop or until ctx
// is cancelled (which stops softly, as Stop does). The Client needs a
// Registry, and a database that Migrate has brought to SchemaVersion: a
// worker never runs against tables older than it expects.
func (c *Client) Start(ctx context.Context) error {
	if c.reg == nil {
		return errors.New("worker: Start: the client has no Registry, so it can only enqueue")
	}
	if err := c.checkSchema(ctx); err != nil {
		return err
	}
	if err := c.river.Start(ctx); err != nil {
		return fmt.Errorf("worker: start: %w", err)
	}
	return nil
}

// Stop stops fetching runs and waits for the running ones to finish, or
// until ctx is done. A run cut short by a hard stop is retried by another
// worker and resumes from its last checkpoint.
func (c *Client) Stop(ctx context.Context) error {
	if err := c.river.Stop(ctx); err != nil {
		return fmt.Errorf("worker: stop: %w", err)
	}
	return nil
}

// River returns the underlying River client, for what this package does
// not wrap (subscriptions, queue pausing, job listing).
func (c *Client) River() *river.Client[pgx.Tx] { return c.river }

// Saver returns the checkpointer Follow reads.
func (c *Client) Saver() checkpoint.Saver { return c.saver }

// tables holds the quoted, possibly schema-qualified, table names.
type tables struct {
	migrations, runs, riverJob string
}

func newTables(schema string) tables {
	name := func(table string) string {
		if schema == "" {
			return pgx.Identifier{table}.Sanitize()
		}
		return pgx.Identifier{schema, table}.Sanitize()
	}
	return tables{
		migrations: name("stategraph_worker_migrations"),
		runs:       name("stategraph_runs"),
		riverJob:   name("river_job"),
	}
}
