package worker

import (
	"context"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/stategraph/stategraph/checkpoint"
)

// Follow yields the events of a run as they happen, from any process: its
// status first, then each checkpoint the run saves (with its step and the
// nodes it applied) and each change of status, until the run is done
// (the last event is its final status) or ctx ends, or the caller breaks.
//
// The database is the source of truth: Follow reads the run's row and the
// thread's checkpoints whose metadata carries the run id, so no event is
// missed or repeated, and a late follower sees the whole run.
// LISTEN/NOTIFY (a channel per run) only says when to read again; it is
// best effort, and Follow also reads every poll interval
// (WithPollInterval). While it follows, the run is recorded in
// stategraph_followers, so that its worker notifies its checkpoints;
// runs nobody follows send none. A status seen between two reads may be skipped
// (a run can go from pending to running to success in between); the final
// one never is. An unknown run is ErrNotFound.
func (c *Client) Follow(ctx context.Context, runID string) iter.Seq2[RunEvent, error] {
	return func(yield func(RunEvent, error) bool) {
		wake, stop := c.listen(ctx, runID)
		defer stop()
		f := c.follow(ctx, runID)
		defer f.stop(ctx)
		var (
			last     Status
			lastErr  string
			lastID   string // newest checkpoint yielded
			first    = true
			deadline = time.NewTimer(c.poll)
		)
		defer deadline.Stop()
		for {
			run, err := c.Run(ctx, runID)
			if err != nil {
				yield(RunEvent{}, err)
				return
			}
			// Checkpoints before the status: a run's checkpoints are all
			// saved before its final status is.
			cps, err := c.newCheckpoints(ctx, run, lastID)
			if err != nil {
				yield(RunEvent{}, err)
				return
			}
			for _, ev := range cps {
				if !yield(ev, nil) {
					return
				}
				lastID = ev.Checkpoint.CheckpointID
			}
			if first || run.Status != last || run.Error != lastErr {
				first, last, lastErr = false, run.Status, run.Error
				ev := RunEvent{Kind: EventStatus, RunID: runID, Status: run.Status, Error: run.Error, At: run.UpdatedAt, Run: run}
				if !yield(ev, nil) || run.Status.Done() {
					return
				}
			}
			f.refresh(ctx)
			if !deadline.Stop() {
				select {
				case <-deadline.C:
				default:
				}
			}
			deadline.Reset(c.poll)
			select {
			case <-ctx.Done():
				yield(RunEvent{}, ctx.Err())
				return
			case <-wake:
			case <-deadline.C:
			}
		}
	}
}

// newCheckpoints returns the run's checkpoints newer than after, oldest
// first. The thread's ids grow with time, so the newest-first listing
// stops at the first one already seen.
func (c *Client) newCheckpoints(ctx context.Context, run *Run, after string) ([]RunEvent, error) {
	var out []RunEvent
	opts := checkpoint.ListOptions{Filter: map[string]any{"run_id": run.ID}}
	for tup, err := range c.saver.List(ctx, checkpoint.Config{ThreadID: run.Thread}, opts) {
		if err != nil {
			return nil, err
		}
		if after != "" && tup.Config.CheckpointID <= after {
			break
		}
		out = append(out, RunEvent{
			Kind:       EventCheckpoint,
			RunID:      run.ID,
			Status:     run.Status,
			Checkpoint: tup.Config,
			Step:       tup.Metadata.Step,
			Source:     tup.Metadata.Source,
			Nodes:      tup.Metadata.Nodes,
			At:         tup.Checkpoint.CreatedAt,
		})
	}
	slices.Reverse(out)
	return out, nil
}

// listen returns a channel that receives a value when the run's channel
// is notified, on a connection of its own, and a function that stops
// listening and closes the connection. If listening fails, the channel
// never fires and Follow polls.
func (c *Client) listen(ctx context.Context, runID string) (<-chan struct{}, func()) {
	wake := make(chan struct{}, 1)
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return wake, func() {}
	}
	// The connection leaves the pool: a cancelled wait may leave it in a
	// state the pool should not reuse.
	raw := conn.Hijack()
	if _, err := raw.Exec(ctx, "LISTEN "+pgx.Identifier{c.channel(runID)}.Sanitize()); err != nil {
		raw.Close(context.Background()) //nolint:errcheck // gone anyway
		return wake, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, err := raw.WaitForNotification(ctx); err != nil {
				return
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	return wake, func() {
		cancel()
		wg.Wait()
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		raw.Close(cctx) //nolint:errcheck // closing
	}
}

// followTTL is how long a follower's record lasts unless refreshed (a
// follower that died stops costing notifications after it).
const followTTL = time.Minute

// follower is a Follow's record in stategraph_followers, which makes the
// run's worker notify its checkpoints. It is best effort: without it
// Follow still polls.
type follower struct {
	c         *Client
	runID, id string
	at        time.Time // when the record was last written
}

func (c *Client) follow(ctx context.Context, runID string) *follower {
	f := &follower{c: c, runID: runID, id: uuid.Must(uuid.NewV7()).String()}
	f.write(ctx)
	return f
}

func (f *follower) write(ctx context.Context) {
	f.at = time.Now()
	f.c.pool.Exec(ctx, `INSERT INTO `+f.c.t.followers+` (run_id, follower, expires_at) VALUES ($1, $2, now() + $3::interval)
ON CONFLICT (run_id, follower) DO UPDATE SET expires_at = excluded.expires_at`, f.runID, f.id, followTTL.String()) //nolint:errcheck // best effort
}

// refresh extends the record before it expires.
func (f *follower) refresh(ctx context.Context) {
	if time.Since(f.at) > followTTL/3 {
		f.write(ctx)
	}
}

// stop deletes the record.
func (f *follower) stop(ctx context.Context) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	f.c.pool.Exec(dctx, `DELETE FROM `+f.c.t.followers+` WHERE run_id = $1 AND follower = $2`, f.runID, f.id) //nolint:errcheck // it expires
}
