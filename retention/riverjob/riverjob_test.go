package riverjob_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
	"github.com/stategraph/stategraph/retention"
	"github.com/stategraph/stategraph/retention/retentiontest"
	"github.com/stategraph/stategraph/retention/riverjob"
	"github.com/stategraph/stategraph/store"
	storemem "github.com/stategraph/stategraph/store/memory"
	"github.com/stategraph/stategraph/worker"
)

var (
	t0  = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day = 24 * time.Hour
)

// riverClock is River's clock in the test (river.TestConfig.Time): it
// reads a time the test sets, so the period a sweep is unique in is the
// test's choice, not the wall clock's.
type riverClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *riverClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *riverClock) NowOrNil() *time.Time {
	now := c.Now()
	return &now
}

func (c *riverClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// putAt stores a checkpoint of thread created at at.
func putAt(t *testing.T, s checkpoint.Saver, thread string, at time.Time) {
	t.Helper()
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: at, Versions: map[string]string{}},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop},
	})
	require.NoError(t, err)
}

func threads(t *testing.T, s checkpoint.Saver, ids ...string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		if _, err := s.Get(context.Background(), checkpoint.Config{ThreadID: id}); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// startWorkers starts n worker.Clients on schema, each with the job and
// River's clock; they stop with the test, or when the returned func is
// called.
func startWorkers(t *testing.T, pool *pgxpool.Pool, schema string, job *riverjob.Job, clock *riverClock, n int) (stop func()) {
	t.Helper()
	var clients []*worker.Client
	for range n {
		c, err := worker.New(pool, worker.NewRegistry(), worker.WithSchema(schema), worker.WithRiverConfig(func(cfg *river.Config) {
			job.Configure(cfg)
			cfg.Test.Time = clock
		}))
		require.NoError(t, err)
		require.NoError(t, c.Start(context.Background()))
		clients = append(clients, c)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, c := range clients {
			require.NoError(t, c.Stop(ctx))
		}
	}
	t.Cleanup(stop)
	return stop
}

// sweep is what OnSweep saw.
type sweep struct {
	r   riverjob.Result
	err error
}

// next waits for the next sweep's result; the bound turns a sweep that
// never comes into a failure, not a hang.
func next(t *testing.T, results <-chan sweep) riverjob.Result {
	t.Helper()
	select {
	case s := <-results:
		require.NoError(t, s.err)
		return s.r
	case <-time.After(60 * time.Second):
		t.Fatal("no sweep within 60s")
		return riverjob.Result{}
	}
}

// TestTwoWorkersSweepOncePerPeriod runs two worker processes' Clients on
// one database, twice: a first fleet, then one deployed an hour (River's
// clock) and two days (the sweeper's clock) later. Each fleet sweeps
// once — the leader enqueues the period's job when elected — deleting
// exactly the threads expired at the sweeper's time, and a second sweep
// asked for in the same period, from either client, is skipped.
func TestTwoWorkersSweepOncePerPeriod(t *testing.T) {
	pool := pgtest.Pool(t, nil)
	schema := pgtest.Schema(t)
	ctx := context.Background()
	mig, err := worker.New(pool, nil, worker.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, mig.Migrate(ctx))
	saver := postgres.New(pool, postgres.WithSchema(schema))
	all := []string{"old-1", "old-2", "young", "fresh"}
	for id, age := range map[string]time.Duration{"old-1": 40 * day, "old-2": 31 * day, "young": 29 * day, "fresh": 0} {
		putAt(t, saver, id, t0.Add(-age))
	}

	clock := retentiontest.NewClock(t0)
	sw, err := retention.New(saver, retention.Policy{TTL: 30 * day}, retention.WithClock(clock), retention.WithBatchSize(1))
	require.NoError(t, err)
	mem, err := storemem.New(store.WithClock(clock.Now))
	require.NoError(t, err)
	require.NoError(t, mem.Put(ctx, []string{"u"}, "for-a-day", map[string]any{}, store.WithTTL(day)))
	require.NoError(t, mem.Put(ctx, []string{"u"}, "for-ever", map[string]any{}))
	results := make(chan sweep, 8)
	job, err := riverjob.New(sw, riverjob.WithStore(mem, 0), riverjob.OnSweep(func(r riverjob.Result, err error) { results <- sweep{r, err} }))
	require.NoError(t, err)
	rclock := &riverClock{now: time.Now().UTC().Truncate(time.Hour).Add(30 * time.Minute)}

	stop := startWorkers(t, pool, schema, job, rclock, 2)
	r := next(t, results)
	require.Equal(t, []string{"old-1", "old-2"}, r.Threads.Deleted)
	require.Equal(t, 2, r.Threads.Batches, "batches of one thread")
	require.Zero(t, r.StoreItems, "no store item has expired yet")
	require.Equal(t, []string{"young", "fresh"}, threads(t, saver, all...))
	rc, err := worker.New(pool, nil, worker.WithSchema(schema), worker.WithRiverConfig(func(cfg *river.Config) {
		job.Configure(cfg)
		cfg.Test.Time = rclock
	}))
	require.NoError(t, err)
	res, err := job.Enqueue(ctx, rc.River())
	require.NoError(t, err)
	require.True(t, res.UniqueSkippedAsDuplicate, "this period has its sweep")
	stop()

	clock.Advance(2 * day)
	rclock.advance(time.Hour)
	stop = startWorkers(t, pool, schema, job, rclock, 2)
	r = next(t, results)
	require.Equal(t, []string{"young"}, r.Threads.Deleted)
	require.Equal(t, 1, r.StoreItems, "the store's expired item went too")
	require.Equal(t, []string{"fresh"}, threads(t, saver, all...))
	res, err = job.Enqueue(ctx, rc.River())
	require.NoError(t, err)
	require.True(t, res.UniqueSkippedAsDuplicate)
	stop()

	var jobs int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "river_job"}.Sanitize()+` WHERE kind = $1`, riverjob.Kind).Scan(&jobs))
	require.Equal(t, 2, jobs, "one sweep per period, from four clients and two elections")
	require.Empty(t, results, "no other sweep ran")
}

func TestNewRefusesAnIntervalRiverCannotMakeUnique(t *testing.T) {
	t.Parallel()
	sw, err := retention.New(postgres.New(nil), retention.Policy{TTL: time.Hour})
	require.NoError(t, err)
	_, err = riverjob.New(sw, riverjob.Every(500*time.Millisecond))
	require.ErrorContains(t, err, "at least 1s")
	_, err = riverjob.New(nil)
	require.ErrorContains(t, err, "nil Sweeper")
	_, err = riverjob.New(sw, riverjob.WithQueue(""))
	require.ErrorContains(t, err, "empty queue")
	_, err = riverjob.New(sw, riverjob.WithTimeout(-time.Second))
	require.ErrorContains(t, err, "negative timeout")
}

// stuckSaver is a saver whose listing of expired threads waits until its
// context ends: a sweep that cannot finish.
type stuckSaver struct {
	checkpoint.Saver
}

func (stuckSaver) StaleThreads(ctx context.Context, _ time.Time, _ string, _ int) ([]retention.Thread, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stuckSaver) DeleteStaleThreads(context.Context, time.Time, []string) ([]string, error) {
	return nil, nil
}

// TestASweepEndsAtItsTimeout pins that a sweep's job has a timeout of its
// own (runs have none), so that a stuck sweep is cut off and, were its
// process gone, rescued by River.
func TestASweepEndsAtItsTimeout(t *testing.T) {
	pool := pgtest.Pool(t, nil)
	schema := pgtest.Schema(t)
	mig, err := worker.New(pool, nil, worker.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, mig.Migrate(context.Background()))
	sw, err := retention.New(stuckSaver{postgres.New(pool, postgres.WithSchema(schema))}, retention.Policy{TTL: day})
	require.NoError(t, err)
	results := make(chan sweep, 1)
	job, err := riverjob.New(sw, riverjob.WithTimeout(time.Second), riverjob.OnSweep(func(r riverjob.Result, err error) {
		select {
		case results <- sweep{r, err}:
		default: // a retry's
		}
	}))
	require.NoError(t, err)
	startWorkers(t, pool, schema, job, &riverClock{now: time.Now()}, 1)
	select {
	case s := <-results:
		require.ErrorIs(t, s.err, context.DeadlineExceeded)
	case <-time.After(60 * time.Second):
		t.Fatal("the sweep did not end within 60s")
	}
}
