package retention

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// Thread is a thread as an Expirer lists it.
type Thread struct {
	ID string
	// Updated is the creation time of its newest checkpoint, in any
	// namespace.
	Updated time.Time
}

// Expirer is implemented by savers that can find and delete expired
// threads in batches.
type Expirer interface {
	// StaleThreads returns up to limit threads whose id sorts after
	// after ("" for the first batch) and whose newest checkpoint, in any
	// namespace, was created before cutoff, in id order.
	StaleThreads(ctx context.Context, cutoff time.Time, after string, limit int) ([]Thread, error)
	// DeleteStaleThreads deletes, in one transaction, every checkpoint,
	// blob and write of each thread of ids whose newest checkpoint is
	// still older than cutoff, and returns the ids it deleted, in order.
	// A thread that got a checkpoint since it was listed is kept.
	DeleteStaleThreads(ctx context.Context, cutoff time.Time, ids []string) ([]string, error)
}

// Policy says which threads expire and what happens to them.
type Policy struct {
	// TTL: a thread whose newest checkpoint is older than this expires.
	// Required.
	TTL time.Duration
	// Keep, if positive, prunes an expired thread to its newest Keep
	// checkpoints per namespace (the saver must be a checkpoint.Pruner)
	// instead of deleting it.
	Keep int
}

// Report is what one sweep did.
type Report struct {
	// Cutoff is the time the sweep compared with: now minus the TTL.
	Cutoff time.Time
	// Expired counts the expired threads found.
	Expired int
	// Deleted are the threads deleted (Keep 0), Pruned those pruned
	// (Keep > 0), in id order.
	Deleted, Pruned []string
	// Kept counts the expired threads left alone: a run held their lease,
	// or they got a checkpoint during the sweep.
	Kept int
	// Batches counts the batches.
	Batches int
}

// Sweeper finds expired threads of a saver and deletes or prunes them.
type Sweeper struct {
	saver    checkpoint.Saver
	exp      Expirer
	policy   Policy
	batch    int
	clock    Clock
	interval time.Duration
	onBatch  func(Report)
	onSweep  func(Report, error)
}

// Option configures New.
type Option func(*Sweeper)

// WithBatchSize sets how many threads a batch lists and deletes (100 by
// default).
func WithBatchSize(n int) Option { return func(s *Sweeper) { s.batch = n } }

// WithClock sets the clock the sweeper reads and ticks by (the system
// clock by default).
func WithClock(c Clock) Option { return func(s *Sweeper) { s.clock = c } }

// WithInterval sets how often Run sweeps (an hour by default).
func WithInterval(d time.Duration) Option { return func(s *Sweeper) { s.interval = d } }

// OnBatch calls fn after each batch with what the batch did, before the
// next starts: for progress logs.
func OnBatch(fn func(Report)) Option { return func(s *Sweeper) { s.onBatch = fn } }

// OnSweep calls fn after each sweep of Run with its report and error:
// Run itself keeps going after a failed sweep, so this is where its
// errors surface.
func OnSweep(fn func(Report, error)) Option { return func(s *Sweeper) { s.onSweep = fn } }

// New returns a Sweeper of saver, which must implement Expirer (and
// checkpoint.Pruner when p.Keep > 0).
func New(saver checkpoint.Saver, p Policy, opts ...Option) (*Sweeper, error) {
	exp, ok := saver.(Expirer)
	if !ok {
		return nil, fmt.Errorf("retention: the saver %T cannot expire threads (it does not implement retention.Expirer)", saver)
	}
	if p.TTL <= 0 {
		return nil, fmt.Errorf("retention: the TTL must be positive, not %v", p.TTL)
	}
	if p.Keep < 0 {
		return nil, fmt.Errorf("retention: negative keep %d", p.Keep)
	}
	if _, ok := saver.(checkpoint.Pruner); p.Keep > 0 && !ok {
		return nil, fmt.Errorf("retention: keep %d needs a saver that prunes, and %T does not implement checkpoint.Pruner", p.Keep, saver)
	}
	s := &Sweeper{saver: saver, exp: exp, policy: p, batch: 100, clock: SystemClock(), interval: time.Hour}
	for _, o := range opts {
		o(s)
	}
	if s.batch < 1 {
		return nil, fmt.Errorf("retention: batch size %d, want at least 1", s.batch)
	}
	if s.interval <= 0 {
		return nil, fmt.Errorf("retention: interval %v, want a positive one", s.interval)
	}
	return s, nil
}

// Sweep runs one pass over the saver's threads: every thread expired at
// the clock's time is deleted or pruned, batch by batch. A failure stops
// the pass; the report says what was done before it.
func (s *Sweeper) Sweep(ctx context.Context) (Report, error) {
	r := Report{Cutoff: s.clock.Now().Add(-s.policy.TTL)}
	after := ""
	for {
		threads, err := s.exp.StaleThreads(ctx, r.Cutoff, after, s.batch)
		if err != nil {
			return r, fmt.Errorf("retention: list threads older than %s after %q: %w", r.Cutoff.Format(time.RFC3339), after, err)
		}
		if len(threads) == 0 {
			return r, nil
		}
		after = threads[len(threads)-1].ID
		b, err := s.sweepBatch(ctx, r.Cutoff, threads)
		r.Batches++
		r.Expired += b.Expired
		r.Kept += b.Kept
		r.Deleted = append(r.Deleted, b.Deleted...)
		r.Pruned = append(r.Pruned, b.Pruned...)
		if err != nil {
			return r, err
		}
		if s.onBatch != nil {
			s.onBatch(b)
		}
		if len(threads) < s.batch {
			return r, nil
		}
	}
}

// sweepBatch deletes or prunes one batch of expired threads.
func (s *Sweeper) sweepBatch(ctx context.Context, cutoff time.Time, threads []Thread) (Report, error) {
	b := Report{Cutoff: cutoff, Expired: len(threads), Batches: 1}
	ids := make([]string, 0, len(threads))
	for _, t := range threads {
		held, err := s.leased(ctx, t.ID)
		if err != nil {
			return b, err
		}
		if held {
			b.Kept++
			continue
		}
		ids = append(ids, t.ID)
	}
	if s.policy.Keep > 0 {
		p := s.saver.(checkpoint.Pruner)
		for _, id := range ids {
			if err := p.Prune(ctx, id, s.policy.Keep); err != nil {
				return b, fmt.Errorf("retention: prune thread %q to %d checkpoints: %w", id, s.policy.Keep, err)
			}
			b.Pruned = append(b.Pruned, id)
		}
		return b, nil
	}
	if len(ids) == 0 {
		return b, nil
	}
	deleted, err := s.exp.DeleteStaleThreads(ctx, cutoff, ids)
	if err != nil {
		return b, fmt.Errorf("retention: delete threads %q..%q: %w", ids[0], ids[len(ids)-1], err)
	}
	b.Deleted = deleted
	b.Kept += len(ids) - len(deleted)
	return b, nil
}

// leased reports whether a run holds the lease of thread now.
func (s *Sweeper) leased(ctx context.Context, thread string) (bool, error) {
	l, ok := s.saver.(checkpoint.Leaser)
	if !ok {
		return false, nil
	}
	info, err := l.LeaseOf(ctx, thread)
	if err != nil {
		return false, fmt.Errorf("retention: read the lease of thread %q: %w", thread, err)
	}
	return info != nil, nil
}

// Run sweeps at every tick of the clock's ticker (WithInterval) until ctx
// is done, then returns ctx's error. A failed sweep does not stop it: the
// error goes to OnSweep and the next tick tries again.
func (s *Sweeper) Run(ctx context.Context) error {
	t := s.clock.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
		}
		r, err := s.Sweep(ctx)
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return ctx.Err()
		}
		if s.onSweep != nil {
			s.onSweep(r, err)
		}
	}
}
