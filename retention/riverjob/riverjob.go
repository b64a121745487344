package riverjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/stategraph/stategraph/retention"
	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/worker"
)

const (
	// Kind is the River job kind of a sweep.
	Kind = "stategraph_retention_sweep"
	// Queue is the River queue sweeps go to and are worked from, one at a
	// time per client, unless WithQueue says otherwise.
	Queue = "stategraph_retention"
	// DefaultInterval is how often a sweep runs unless Every says
	// otherwise.
	DefaultInterval = time.Hour
)

// Args are the arguments of a sweep job: none, the Job holds the policy.
type Args struct{}

// Kind implements river.JobArgs.
func (Args) Kind() string { return Kind }

// Result is what one sweep job did.
type Result struct {
	// Threads is the report of the thread sweep.
	Threads retention.Report
	// StoreItems counts the expired store items deleted (WithStore).
	StoreItems int
}

// Job is the retention sweep as a River periodic job. Give it to every
// worker.Client of a database (Option); River makes one sweep run per
// period among all of them.
type Job struct {
	sweeper    *retention.Sweeper
	interval   time.Duration
	timeout    time.Duration
	queue      string
	store      *store.Store
	storeBatch int
	onSweep    func(Result, error)
}

// Option configures New.
type Option func(*Job)

// Every sets the period (DefaultInterval by default; at least a second,
// River's smallest unique period). Periods are aligned to multiples of d
// in UTC: with an hour, one sweep per clock hour.
func Every(d time.Duration) Option { return func(j *Job) { j.interval = d } }

// WithTimeout sets how long one sweep may run before its context is
// cancelled (the interval by default). A sweep cut short, or lost with
// its process, is retried by River — the rescuer finds a lost one an hour
// (River's RescueStuckJobsAfter) after the timeout — and carries on where
// the committed batches left off.
func WithTimeout(d time.Duration) Option { return func(j *Job) { j.timeout = d } }

// WithQueue sets the River queue of the sweeps (Queue by default).
func WithQueue(name string) Option { return func(j *Job) { j.queue = name } }

// WithStore makes each sweep also delete the expired items of s, batch
// at a time (store.Store.Sweep; 100 when batch < 1).
func WithStore(s *store.Store, batch int) Option {
	return func(j *Job) { j.store, j.storeBatch = s, batch }
}

// OnSweep calls fn after each sweep this process works, with its result
// and error (a failed sweep is also retried by River, with its usual
// backoff): for logs and metrics.
func OnSweep(fn func(Result, error)) Option { return func(j *Job) { j.onSweep = fn } }

// New returns the sweep job of sw.
func New(sw *retention.Sweeper, opts ...Option) (*Job, error) {
	if sw == nil {
		return nil, errors.New("retention/riverjob: nil Sweeper")
	}
	j := &Job{sweeper: sw, interval: DefaultInterval, queue: Queue}
	for _, o := range opts {
		o(j)
	}
	if j.interval < time.Second {
		return nil, fmt.Errorf("retention/riverjob: interval %v, want at least 1s (River's smallest unique period)", j.interval)
	}
	if j.timeout == 0 {
		j.timeout = j.interval
	}
	if j.timeout < 0 {
		return nil, fmt.Errorf("retention/riverjob: negative timeout %v", j.timeout)
	}
	if j.queue == "" {
		return nil, errors.New("retention/riverjob: empty queue name")
	}
	return j, nil
}

// Option returns the worker.Option that adds the job to a Client's River
// configuration (Configure), through worker.WithRiverConfig: it combines
// with the Client's other WithRiverConfig options.
func (j *Job) Option() worker.Option { return worker.WithRiverConfig(j.Configure) }

// Configure adds to cfg the sweep worker, the sweep queue (one worker)
// and the periodic job, which River's leader enqueues every interval and
// once when it is elected (RunOnStart: a fleet that redeploys more often
// than the interval still sweeps). Configure a config once: River panics
// on a second worker of the same kind.
func (j *Job) Configure(cfg *river.Config) {
	if cfg.Workers == nil {
		cfg.Workers = river.NewWorkers()
	}
	river.AddWorker(cfg.Workers, &sweepWorker{j: j})
	if cfg.Queues == nil {
		cfg.Queues = map[string]river.QueueConfig{}
	}
	if _, ok := cfg.Queues[j.queue]; !ok {
		cfg.Queues[j.queue] = river.QueueConfig{MaxWorkers: 1}
	}
	cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(
		river.PeriodicInterval(j.interval),
		func() (river.JobArgs, *river.InsertOpts) { return Args{}, j.InsertOpts() },
		&river.PeriodicJobOpts{ID: Kind, RunOnStart: true},
	))
}

// InsertOpts are the options every sweep job is inserted with: its queue,
// and uniqueness per period, whatever its state (pending, running or
// completed), so the period's second insertion is skipped.
func (j *Job) InsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: j.queue, UniqueOpts: river.UniqueOpts{ByPeriod: j.interval}}
}

// Enqueue asks for a sweep now, through rc (a worker.Client's River()).
// It is skipped, with the result's UniqueSkippedAsDuplicate set, when
// this period's sweep has been enqueued already.
func (j *Job) Enqueue(ctx context.Context, rc *river.Client[pgx.Tx]) (*rivertype.JobInsertResult, error) {
	res, err := rc.Insert(ctx, Args{}, j.InsertOpts())
	if err != nil {
		return nil, fmt.Errorf("retention/riverjob: enqueue a sweep: %w", err)
	}
	return res, nil
}

// output is what a sweep records on its River job row.
type output struct {
	Expired    int `json:"expired"`
	Deleted    int `json:"deleted"`
	Pruned     int `json:"pruned"`
	Kept       int `json:"kept"`
	Batches    int `json:"batches"`
	StoreItems int `json:"store_items"`
}

type sweepWorker struct {
	river.WorkerDefaults[Args]
	j *Job
}

// Timeout implements river.Worker: a sweep has one, unlike runs, so that
// River's rescuer retries a sweep whose process died.
func (w *sweepWorker) Timeout(*river.Job[Args]) time.Duration { return w.j.timeout }

// Work runs one sweep: the threads, then the store's items.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[Args]) error {
	var res Result
	err := func() error {
		r, err := w.j.sweeper.Sweep(ctx)
		res.Threads = r
		if err != nil {
			return err
		}
		if w.j.store != nil {
			n, err := w.j.store.Sweep(ctx, w.j.storeBatch)
			res.StoreItems = n
			return err
		}
		return nil
	}()
	r := res.Threads
	// RecordOutput fails only outside Work or on a value JSON cannot hold:
	// neither can happen here, and the sweep's result stands either way.
	_ = river.RecordOutput(ctx, output{r.Expired, len(r.Deleted), len(r.Pruned), r.Kept, r.Batches, res.StoreItems})
	if w.j.onSweep != nil {
		w.j.onSweep(res, err)
	}
	return err
}
