package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/worker"
)

// WithWorkers makes the server one replica of many over one PostgreSQL
// database: its runs are River jobs of package worker, executed by any
// process on the database that has workers, and their events are kept in
// the database, so that any replica serves any thread, streams or joins
// any run, and sees any thread busy. It needs WithStore with a
// *PostgresStore, and graphs whose checkpointer is on the same database
// (one checkpoint/postgres Saver shared by all of them).
//
// n is how many runs this process executes at once: 0 makes it an
// API-only replica, whose runs other processes execute. opts configure
// the worker.Client (worker.WithSchema and worker.WithSaver are set from
// the store and the graphs). Every process on one database must register
// the same graphs.
func WithWorkers(n int, opts ...worker.Option) Option {
	return func(o *options) { o.workers, o.workerOpts = &n, opts }
}

// WithPollInterval sets how often a stream of a run executed elsewhere
// looks at the run's status when no event arrives (default 500 ms): a run
// cancelled before it started has no worker to end its stream. Only with
// WithWorkers.
func WithPollInterval(d time.Duration) Option { return func(o *options) { o.poll = d } }

// cluster is what a server with WithWorkers runs on.
type cluster struct {
	st     *PostgresStore
	c      *worker.Client
	saver  checkpoint.Saver
	hub    *hub
	poll   time.Duration
	worker bool // this process executes runs
}

// newCluster builds the worker client over the store's database,
// migrates it and starts its workers.
func (s *Server) newCluster() error {
	pg, ok := s.store.(*PostgresStore)
	if !ok {
		return errors.New("server: WithWorkers needs WithStore with a *PostgresStore")
	}
	if *s.opts.workers < 0 {
		return fmt.Errorf("server: WithWorkers(%d): want 0 or more", *s.opts.workers)
	}
	var saver checkpoint.Saver
	for _, a := range s.assistants {
		if saver == nil {
			saver = a.g.Saver()
		} else if a.g.Saver() != saver {
			return fmt.Errorf("server: WithWorkers: graph %q has a checkpointer of its own: every graph must use the same checkpoint/postgres Saver", a.GraphID)
		}
	}
	var reg *worker.Registry
	n := *s.opts.workers
	if n > 0 {
		reg = worker.NewRegistry()
		for _, a := range s.assistants {
			worker.RegisterFunc(reg, a.GraphID, s.work)
		}
	}
	opts := []worker.Option{}
	if pg.schema != "" {
		opts = append(opts, worker.WithSchema(pg.schema))
	}
	if saver != nil {
		opts = append(opts, worker.WithSaver(saver))
	}
	if n > 0 {
		opts = append(opts, worker.WithWorkers(n))
	}
	opts = append(opts, s.opts.workerOpts...)
	wc, err := worker.New(pg.pool, reg, opts...)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wc.Migrate(ctx); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	sum := sha256.Sum256([]byte(pg.schema))
	s.cl = &cluster{st: pg, c: wc, saver: saver, poll: s.opts.poll, worker: n > 0,
		hub: newHub(pg.pool, "stategraph_server_events_"+hex.EncodeToString(sum[:8]))}
	s.crons = pgCrons{st: pg}
	if s.cl.poll <= 0 {
		s.cl.poll = 500 * time.Millisecond
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.cl.hub.run(s.ctx)
	}()
	if n > 0 {
		if err := wc.Start(s.ctx); err != nil {
			return fmt.Errorf("server: %w", err)
		}
	}
	return nil
}

// close stops the workers: the runs they execute are cut short and taken
// over by other workers (or by this process's next start), which resume
// them from their last checkpoints.
func (cl *cluster) close() {
	if !cl.worker {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = cl.c.StopAndCancel(ctx)
}

// Worker returns the worker.Client of a server with WithWorkers (nil
// without), for what the server does not wrap: River's own client, run
// pruning, queue pausing.
func (s *Server) Worker() *worker.Client {
	if s.cl == nil {
		return nil
	}
	return s.cl.c
}

// busy reports whether a thread has a run in progress or queued, or a
// state update holding it.
func (s *Server) busy(ctx context.Context, tid string) bool {
	s.mu.Lock()
	_, busy := s.threads[tid]
	s.mu.Unlock()
	if busy || s.cl == nil {
		return busy
	}
	return s.clusterBusy(ctx, tid)
}

// clusterBusy reports whether a thread has a worker run pending or
// running, in any process.
func (s *Server) clusterBusy(ctx context.Context, tid string) bool {
	busy, err := s.cl.c.Busy(ctx, tid)
	return err == nil && busy
}

// runStatus is the API's run status for a worker run's.
func runStatus(st worker.Status) string {
	switch st {
	case worker.StatusPending:
		return RunPending
	case worker.StatusRunning:
		return RunRunning
	case worker.StatusSuccess:
		return RunSuccess
	case worker.StatusError:
		return RunError
	}
	return RunInterrupted // interrupted, cancelled
}

// overlay sets the status of a run record that says it is pending or
// running from the worker's record, which is the truth: a run cancelled
// before it started, or rejected when it was to start, has no execution
// to write its record.
func (s *Server) overlay(ctx context.Context, rec RunRecord) RunRecord {
	if s.cl == nil || (rec.Status != RunPending && rec.Status != RunRunning) {
		return rec
	}
	if r, err := s.cl.c.Run(ctx, rec.RunID); err == nil {
		rec.Status = runStatus(r.Status)
	}
	return rec
}
