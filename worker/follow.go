package worker

import (
	"context"
	"iter"
	"slices"
	"sync"
	"time"

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
// (WithPollInterval). A status seen between two reads may be skipped
// (a run can go from pending to running to success in between); the final
// one never is. An unknown run is ErrNotFound.
func (c *Client) Follow(ctx context.Context, runID string) iter.Seq2[RunEvent, error] {
	return func(yield func(RunEvent, error) bool) {
		wake, stop := c.listen(ctx, runID)
		defer stop()
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
