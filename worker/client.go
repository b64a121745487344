package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
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
	riverCfg []func(*river.Config)

	id        string // the worker's id: River's client id, and its row in stategraph_workers
	beat      time.Duration
	deadAfter time.Duration
	maxQueued int
	live      liveness
	fleet     fleetSlots
}

// The defaults of a Client, chosen for I/O-bound graphs (nodes that wait
// on models, tools and the database far longer than they compute). See
// docs/deployment.md for the reasoning.
const (
	// DefaultWorkers is how many runs a Client executes at once: a run
	// that waits on I/O costs a goroutine, not a core.
	DefaultWorkers = 50
	// DefaultFetchCooldown is the shortest time between two fetches of
	// runs by River (River's own default is 100 ms, which caps a process
	// at a few batches of runs a second).
	DefaultFetchCooldown = 2 * time.Millisecond
	// DefaultHeartbeat is how often a worker refreshes its row and looks
	// for silent workers.
	DefaultHeartbeat = 2 * time.Second
	// DefaultDeadAfter is how long a worker may be silent before its runs
	// are given to others.
	DefaultDeadAfter = 8 * time.Second
	// DefaultSnoozeInterval is the longest a run waiting for its thread
	// sleeps when nothing wakes it (a backstop: the end of the run ahead
	// wakes it at once).
	DefaultSnoozeInterval = time.Minute
	// DefaultMaxQueued is how many pending runs a thread may have.
	DefaultMaxQueued = 100
)

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
// MaxWorkers for the queue; default DefaultWorkers). Give the pool
// connections for them (see PoolSize).
func WithWorkers(n int) Option { return func(c *Client) { c.workers = n } }

// WithSaver names the checkpointer the registered graphs use, which
// Follow reads a run's checkpoints from (default: a checkpoint/postgres
// Saver on the Client's pool, in the schema of WithSchema). Migrate
// migrates it too when it has a Migrate(context.Context) error method.
func WithSaver(s checkpoint.Saver) Option { return func(c *Client) { c.saver = s } }

// WithSnoozeInterval sets the longest a run that waits for its thread
// (strategies Enqueue, Interrupt and Rollback) sleeps when nothing wakes
// it (default DefaultSnoozeInterval). It is a backstop: the end of the
// run ahead of it wakes it at once, and every heartbeat wakes a thread's
// first waiter when nothing runs ahead of it.
func WithSnoozeInterval(d time.Duration) Option { return func(c *Client) { c.snooze = d } }

// WithHeartbeat sets how often a worker refreshes its row in
// stategraph_workers and looks for silent workers (every, default
// DefaultHeartbeat), and how long a worker may be silent before any live
// worker re-queues its runs, which resume from their last checkpoints
// (deadAfter, default DefaultDeadAfter). deadAfter must exceed every; a
// few heartbeats are sensible, so that one slow beat does not count as
// death. A worker whose own heartbeat has failed for deadAfter cancels
// the runs it executes. A dead worker's runs are taken over deadAfter to
// deadAfter + every after its last heartbeat.
func WithHeartbeat(every, deadAfter time.Duration) Option {
	return func(c *Client) { c.beat, c.deadAfter = every, deadAfter }
}

// WithMaxQueued sets how many pending runs a thread may have (default
// DefaultMaxQueued; 0 for no limit). Enqueueing past it fails with an
// error wrapping ErrQueueFull that names the thread and the limit.
func WithMaxQueued(n int) Option { return func(c *Client) { c.maxQueued = n } }

// WithPollInterval sets how often Follow reads a run when no notification
// arrives (default 1s): LISTEN/NOTIFY is best effort, polling is the
// fallback.
func WithPollInterval(d time.Duration) Option { return func(c *Client) { c.poll = d } }

// WithRunTimeout sets the longest one execution of a run may take before
// its context is cancelled; an execution cut short is retried and resumes
// from its last checkpoint. The default, 0, is no limit: a run is never
// cut off for being long, only re-queued when its worker goes silent
// (WithHeartbeat). It is the one setting for a run's time: the Client
// sets it as the per-job timeout of its River jobs, so River's JobTimeout
// and RescueStuckJobsAfter do not apply to runs.
func WithRunTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRiverConfig adjusts the River configuration before the River client
// is made (retry policy, logger, fetch intervals, …). The Client sets
// Schema, Queues, Workers, ID, FetchCooldown (DefaultFetchCooldown) and
// JobTimeout (-1: runs time out by WithRunTimeout alone) first. Several
// WithRiverConfig options all apply, in the order given (River middleware
// for tracing and a periodic job for retention, say).
func WithRiverConfig(f func(*river.Config)) Option {
	return func(c *Client) { c.riverCfg = append(c.riverCfg, f) }
}

// PoolSize is the pgxpool MaxConns this package advises for a process
// that executes workers runs at once: a run holds a connection only while
// it takes its thread, writes a checkpoint or records its end, so an
// I/O-bound run needs a connection a fraction of its time; a quarter of
// the runs, plus River's producer, notifier and heartbeat, plus some
// followers, is enough (and PostgreSQL's max_connections, summed over the
// processes, is the real budget).
func PoolSize(workers int) int32 {
	return int32(max(8, workers/4+6))
}

// New returns a Client on pool. With a non-nil Registry it works runs of
// the registered graphs once started; with nil it only enqueues and
// reports (an insert-only client). Call Migrate once before use.
func New(pool *pgxpool.Pool, reg *Registry, opts ...Option) (*Client, error) {
	if pool == nil {
		return nil, errors.New("worker: New: nil pool")
	}
	c := &Client{pool: pool, reg: reg, queue: DefaultQueue, workers: DefaultWorkers, snooze: DefaultSnoozeInterval, poll: time.Second,
		beat: DefaultHeartbeat, deadAfter: DefaultDeadAfter, maxQueued: DefaultMaxQueued}
	for _, o := range opts {
		o(c)
	}
	if c.workers < 1 || c.fleet.n < 0 || c.snooze <= 0 || c.poll <= 0 || c.timeout < 0 || c.maxQueued < 0 {
		return nil, errors.New("worker: New: workers, snooze and poll intervals must be positive, and the run timeout, queue limit and fleet limit not negative")
	}
	if c.beat <= 0 || c.deadAfter <= c.beat {
		return nil, fmt.Errorf("worker: New: the heartbeat (%s) must be positive and the dead-after limit (%s) longer than it", c.beat, c.deadAfter)
	}
	host, _ := os.Hostname()
	c.id = fmt.Sprintf("stategraph_%.40s_%s", host, uuid.Must(uuid.NewV7()))
	c.live.inflight = map[int64]inflight{}
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
	cfg := &river.Config{Schema: c.schema, Workers: workers, ID: c.id, FetchCooldown: DefaultFetchCooldown, JobTimeout: -1}
	if reg != nil {
		cfg.Queues = map[string]river.QueueConfig{c.queue: {MaxWorkers: c.workers}}
	}
	for _, f := range c.riverCfg {
		f(cfg)
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
	if err := c.recordWorker(ctx); err != nil {
		return err
	}
	// A worker of this machine whose process ended (this worker's
	// predecessor, killed) hands its runs on now, not after dead-after.
	if _, err := c.rescueEnded(ctx); err != nil {
		c.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM `+c.t.workers+` WHERE worker_id = $1`, c.id) //nolint:errcheck // a stale row is deleted by the next rescue
		return fmt.Errorf("worker: start: take over the runs of ended workers: %w", err)
	}
	if err := c.startFleet(ctx); err != nil {
		c.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM `+c.t.workers+` WHERE worker_id = $1`, c.id) //nolint:errcheck // a stale row is deleted by the next rescue
		return err
	}
	if err := c.river.Start(ctx); err != nil {
		c.stopFleet()
		c.pool.Exec(context.WithoutCancel(ctx), `DELETE FROM `+c.t.workers+` WHERE worker_id = $1`, c.id) //nolint:errcheck // a stale row is deleted by the next rescue
		return fmt.Errorf("worker: start: %w", err)
	}
	c.startHeartbeat()
	return nil
}

// Stop stops fetching runs and waits for the running ones to finish, or
// until ctx is done. A run cut short by a hard stop is retried by another
// worker and resumes from its last checkpoint.
func (c *Client) Stop(ctx context.Context) error {
	err := c.river.Stop(ctx)
	if err == nil {
		c.stopHeartbeat()
		c.stopFleet()
	}
	if err != nil {
		return fmt.Errorf("worker: stop: %w", err)
	}
	return nil
}

// StopAndCancel stops fetching runs and cancels the running ones, then
// waits for them to stop, or until ctx is done. A run cut short is
// retried (by another worker, or by this one once started again) and
// resumes from its last checkpoint.
func (c *Client) StopAndCancel(ctx context.Context) error {
	err := c.river.StopAndCancel(ctx)
	if err == nil {
		c.stopHeartbeat()
		c.stopFleet()
	}
	if err != nil {
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
	migrations, runs, riverJob, workers, followers, leases string
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
		workers:    name("stategraph_workers"),
		followers:  name("stategraph_followers"),
		leases:     name("stategraph_leases"), // checkpoint/postgres's, for a run's deferred lease release
	}
}
