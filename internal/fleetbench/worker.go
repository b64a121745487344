package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
	"github.com/stategraph/stategraph/worker"
)

// graphName is the name the workers register the benchmark graph under.
const graphName = "chain"

// doc is the benchmark graph's state: the thread's name, and a sum the
// nodes add to.
type doc struct {
	Topic string `json:"topic"`
	Total int    `json:"total"`
}

var (
	topicF = state.Value("topic", func(d *doc) *string { return &d.Topic })
	totalF = state.Sum("total", func(d *doc) *int { return &d.Total })
	docs   = state.NewSchema(topicF, totalF)
)

// input is a run's JSON input.
type input struct {
	Topic string `json:"topic"`
}

// stepClock records the step overhead of the runs of a process: for
// each node, the time since the previous node of its thread ended.
type stepClock struct {
	mu      sync.Mutex
	ended   map[string]time.Time
	samples []int64 // nanoseconds
}

func (s *stepClock) start(thread string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.ended[thread]; ok {
		s.samples = append(s.samples, int64(at.Sub(prev)))
	}
}

func (s *stepClock) end(thread string, at time.Time, last bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if last {
		delete(s.ended, thread)
		return
	}
	s.ended[thread] = at
}

// chainGraph compiles the benchmark graph: steps nodes in a chain, each
// waiting wait, as an I/O-bound node would, then adding 1 to Total.
func chainGraph(saver *postgres.Saver, steps int, wait time.Duration, clock *stepClock) (*graph.Compiled[doc], error) {
	g := graph.New(docs)
	prev := graph.Start
	for i := range steps {
		name := fmt.Sprintf("n%d", i)
		last := i == steps-1
		g.AddNode(name, func(ctx context.Context, d doc) (state.Update[doc], error) {
			clock.start(d.Topic, time.Now())
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return state.Update[doc]{}, ctx.Err()
			}
			clock.end(d.Topic, time.Now(), last)
			return state.Writes(totalF.Set(1)), nil
		})
		g.AddEdge(prev, name)
		prev = name
	}
	return g.Compile(graph.WithCheckpointer(saver))
}

// workerReport is what a worker process prints when it stops.
type workerReport struct {
	Samples       []int64 `json:"samples"`
	Acquires      int64   `json:"acquires"`
	EmptyAcquires int64   `json:"empty_acquires"`
	AcquireWaitNs int64   `json:"acquire_wait_ns"`
	MaxConns      int32   `json:"max_conns"`
	CanceledAcqs  int64   `json:"canceled_acquires"`
}

// runWorker is a worker process: a Client with cfg.workers workers on a
// pool of cfg.pool connections, working the benchmark graph until its
// standard input closes.
func runWorker(cfg config) error {
	ctx := context.Background()
	pcfg, err := pgxpool.ParseConfig(cfg.dsn)
	if err != nil {
		return err
	}
	pcfg.MaxConns = int32(cfg.pool)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	saver := postgres.New(pool, postgres.WithSchema(cfg.schema))
	clock := &stepClock{ended: map[string]time.Time{}}
	app, err := chainGraph(saver, cfg.steps, cfg.step, clock)
	if err != nil {
		return err
	}
	reg := worker.NewRegistry()
	worker.Register(reg, graphName, app, worker.JSONInput(func(in input) (state.Update[doc], error) {
		return state.Writes(topicF.Set(in.Topic)), nil
	}))
	c, err := worker.New(pool, reg, worker.WithSchema(cfg.schema), worker.WithSaver(saver), worker.WithWorkers(cfg.workers),
		worker.WithFleetLimit(cfg.limit), worker.WithRiverConfig(func(c *river.Config) { c.Logger = slog.New(slog.DiscardHandler) }))
	if err != nil {
		return err
	}
	before := pool.Stat()
	if err := c.Start(ctx); err != nil {
		return err
	}
	fmt.Println("ready")
	io.Copy(io.Discard, bufio.NewReader(os.Stdin)) //nolint:errcheck // until the parent closes it
	after := pool.Stat()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Stop(sctx); err != nil {
		return err
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	return json.NewEncoder(os.Stdout).Encode(workerReport{
		Samples:       clock.samples,
		Acquires:      after.AcquireCount() - before.AcquireCount(),
		EmptyAcquires: after.EmptyAcquireCount() - before.EmptyAcquireCount(),
		AcquireWaitNs: int64(after.AcquireDuration() - before.AcquireDuration()),
		MaxConns:      after.MaxConns(),
		CanceledAcqs:  after.CanceledAcquireCount() - before.CanceledAcquireCount(),
	})
}
