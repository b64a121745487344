package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/stategraph/stategraph/internal/procid"
)

// Liveness. A started worker has a row in stategraph_workers that it
// refreshes every heartbeat interval, with the database's clock, so hosts'
// clocks do not matter. Every heartbeat also looks for workers silent for
// longer than the dead-after limit; when it finds one, it re-queues the
// runs whose River jobs that worker was executing, as new jobs, which
// resume from the runs' last checkpoints, and deletes the worker's row. A
// worker whose heartbeat has failed for longer than the limit, or that
// finds its row gone (it was declared dead), cancels the runs it is
// executing: others have them, or will. A run is never cut off for being
// long, only for its worker being silent.

// errSilent is the cause of the cancellation of a silent worker's runs.
var errSilent = errors.New("worker: this worker was silent for longer than its dead-after limit; its runs are re-queued")

// liveness is a Client's heartbeat state.
type liveness struct {
	takeovers atomic.Int64 // runs this Client re-queued from silent workers
	mu        sync.Mutex
	inflight  map[int64]inflight // by River job id
	followed  map[string]bool    // runs someone follows, as of the last heartbeat
	stop      chan struct{}
	done      chan struct{}
}

type inflight struct {
	runID  string
	cancel context.CancelCauseFunc
}

// track registers an execution, so that a silent worker can cancel it.
func (c *Client) track(ctx context.Context, jobID int64, runID string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c.live.mu.Lock()
	c.live.inflight[jobID] = inflight{runID: runID, cancel: cancel}
	c.live.mu.Unlock()
	return ctx, func() {
		c.live.mu.Lock()
		delete(c.live.inflight, jobID)
		c.live.mu.Unlock()
		cancel(nil)
	}
}

// isFollowed reports whether someone followed the run at the last
// heartbeat (so its checkpoints are worth a notification).
func (c *Client) isFollowed(runID string) bool {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	return c.live.followed[runID]
}

// fence cancels every execution of this worker.
func (c *Client) fence() {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	for _, f := range c.live.inflight {
		f.cancel(errSilent)
	}
}

// recordWorker inserts the worker's row, before River fetches a job for
// it.
func (c *Client) recordWorker(ctx context.Context) error {
	if _, err := c.pool.Exec(ctx, `INSERT INTO `+c.t.workers+` (worker_id, queue, process) VALUES ($1, $2, $3)
ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`, c.id, c.queue, procid.Self()); err != nil {
		return fmt.Errorf("worker: start: record the worker: %w", err)
	}
	return nil
}

// startHeartbeat keeps the worker's row fresh until Stop, or until River
// (started) has stopped.
func (c *Client) startHeartbeat() {
	c.live.stop, c.live.done = make(chan struct{}), make(chan struct{})
	go c.heartbeat(c.live.stop, c.live.done, c.river.Stopped())
}

// stopHeartbeat ends the heartbeat and deletes the worker's row.
func (c *Client) stopHeartbeat() {
	if c.live.stop == nil {
		return
	}
	select {
	case <-c.live.stop:
	default:
		close(c.live.stop)
	}
	<-c.live.done
}

func (c *Client) heartbeat(stop, done chan struct{}, riverStopped <-chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tick := time.NewTicker(c.beat)
	defer tick.Stop()
	last := time.Now() // the last heartbeat the database took
	for {
		select {
		case <-stop:
		case <-riverStopped:
		case <-tick.C:
			if err := c.beatOnce(ctx); err != nil {
				if time.Since(last) > c.deadAfter {
					c.fence()
				}
				continue
			}
			last = time.Now()
			continue
		}
		dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
		c.pool.Exec(dctx, `DELETE FROM `+c.t.workers+` WHERE worker_id = $1`, c.id) //nolint:errcheck // a stale row is deleted by the next rescue
		dcancel()
		return
	}
}

// beatOnce refreshes the worker's row, learns which of its runs are
// followed, and rescues the runs of silent workers, if any.
func (c *Client) beatOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.deadAfter)
	defer cancel()
	c.live.mu.Lock()
	runs := make([]string, 0, len(c.live.inflight))
	for _, f := range c.live.inflight {
		runs = append(runs, f.runID)
	}
	c.live.mu.Unlock()
	var (
		revived  bool
		silent   bool
		followed []string
	)
	err := c.pool.QueryRow(ctx, `WITH me AS (
	INSERT INTO `+c.t.workers+` (worker_id, queue) VALUES ($1, $2)
	ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()
	RETURNING (xmax = 0) AS inserted
)
SELECT (SELECT inserted FROM me),
	EXISTS (SELECT 1 FROM `+c.t.workers+` WHERE worker_id <> $1 AND heartbeat_at < now() - $3::interval),
	ARRAY(SELECT DISTINCT run_id FROM `+c.t.followers+` WHERE run_id = ANY($4) AND expires_at > now())`,
		c.id, c.queue, c.deadAfter.String(), runs).Scan(&revived, &silent, &followed)
	if err != nil {
		return err
	}
	if revived {
		// Another worker found this one silent and re-queued its runs.
		c.fence()
	}
	f := make(map[string]bool, len(followed))
	for _, id := range followed {
		f[id] = true
	}
	c.live.mu.Lock()
	c.live.followed = f
	c.live.mu.Unlock()
	if silent {
		if _, err := c.rescue(ctx); err != nil {
			return err
		}
	}
	return c.wakeStranded(ctx)
}

// rescueEnded re-queues at once the runs of the workers whose process
// has ended on this machine (a worker restarted after a kill finds its
// predecessor's), without waiting for their silence to pass the
// dead-after limit. It returns how many runs it re-queued.
func (c *Client) rescueEnded(ctx context.Context) (int, error) {
	rows, err := c.pool.Query(ctx, `SELECT worker_id, process FROM `+c.t.workers+` WHERE worker_id <> $1 AND process IS NOT NULL`, c.id)
	if err != nil {
		return 0, err
	}
	ended := map[string]string{}
	for rows.Next() {
		var id, proc string
		if err := rows.Scan(&id, &proc); err != nil {
			rows.Close()
			return 0, err
		}
		if procid.Gone(proc) {
			ended[id] = proc
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ended) == 0 {
		return 0, nil
	}
	return c.rescueWorkers(ctx, ended)
}

// rescue re-queues the runs of workers silent for longer than the
// dead-after limit and deletes their rows. It returns how many runs it
// re-queued.
func (c *Client) rescue(ctx context.Context) (int, error) { return c.rescueWorkers(ctx, nil) }

// rescueWorkers re-queues the runs of the workers silent for longer than
// the dead-after limit, and of those in ended (by worker id: their ended
// process), and deletes their rows.
func (c *Client) rescueWorkers(ctx context.Context, ended map[string]string) (int, error) {
	n := 0
	endedIDs := make([]string, 0, len(ended))
	for id := range ended {
		endedIDs = append(endedIDs, id)
	}
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		n = 0
		rows, err := tx.Query(ctx, `SELECT worker_id, extract(epoch FROM now() - heartbeat_at)::float8 FROM `+c.t.workers+`
WHERE worker_id <> $1 AND (heartbeat_at < now() - $2::interval OR worker_id = ANY($3)) FOR UPDATE SKIP LOCKED`, c.id, c.deadAfter.String(), endedIDs)
		if err != nil {
			return err
		}
		silence := map[string]float64{}
		var dead []string
		for rows.Next() {
			var (
				id string
				s  float64
			)
			if err := rows.Scan(&id, &s); err != nil {
				return err
			}
			dead, silence[id] = append(dead, id), s
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(dead) == 0 {
			return nil
		}
		type job struct {
			id, maxAttempts int64
			args            []byte
			queue, by       string
		}
		rows, err = tx.Query(ctx, `SELECT id, args, queue, max_attempts, attempted_by[array_upper(attempted_by, 1)] FROM `+c.t.riverJob+`
WHERE state = 'running' AND kind = $1 AND attempted_by[array_upper(attempted_by, 1)] = ANY($2)`, RunArgs{}.Kind(), dead)
		if err != nil {
			return err
		}
		var jobs []job
		for rows.Next() {
			var j job
			if err := rows.Scan(&j.id, &j.args, &j.queue, &j.maxAttempts, &j.by); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, j := range jobs {
			why := fmt.Sprintf("its worker %s went silent (no heartbeat for %.1fs, limit %s); re-queued by worker %s", j.by, silence[j.by], c.deadAfter, c.id)
			if proc, ok := ended[j.by]; ok {
				why = fmt.Sprintf("the process of its worker %s (%s) ended; re-queued by worker %s", j.by, proc, c.id)
			}
			ok, err := c.requeue(ctx, tx, j.id, j.args, j.queue, int(j.maxAttempts), why)
			if err != nil {
				return err
			}
			if ok {
				n++
			}
		}
		_, err = tx.Exec(ctx, `DELETE FROM `+c.t.workers+` WHERE worker_id = ANY($1)`, dead)
		return err
	})
	if err == nil {
		c.live.takeovers.Add(int64(n))
	}
	return n, err
}

// requeue ends the River job of a silent worker and, when it was
// executing an active run, gives the run a new job (or ends it, when it
// has used up its attempts). It reports whether it re-queued a run.
func (c *Client) requeue(ctx context.Context, tx pgx.Tx, jobID int64, rawArgs []byte, queue string, maxAttempts int, why string) (bool, error) {
	var a RunArgs
	if err := json.Unmarshal(rawArgs, &a); err != nil {
		return false, fmt.Errorf("decode the arguments of job %d: %w", jobID, err)
	}
	if err := c.lockThread(ctx, tx, a.Thread); err != nil {
		return false, err
	}
	// The old job is final, so that its worker, should it come back,
	// cannot complete or retry it over the new one (River changes only
	// running jobs).
	tag, err := tx.Exec(ctx, `UPDATE `+c.t.riverJob+` SET state = 'discarded', finalized_at = now(),
	errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt, 'error', $2::text, 'trace', ''))
WHERE id = $1 AND state = 'running'`, jobID, why)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	var (
		status    Status
		job       int64
		attempt   int
		cancelReq bool
		reason    string
	)
	err = tx.QueryRow(ctx, `SELECT status, coalesce(job_id, 0), attempt, cancel_requested, coalesce(cancel_reason, '') FROM `+c.t.runs+` WHERE run_id = $1 FOR UPDATE`,
		a.RunID).Scan(&status, &job, &attempt, &cancelReq, &reason)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case status.Done() || job != jobID:
		return false, nil // the job was stale: the run ended or moved on
	}
	// The run's execution is dead: free the lease it left on the thread.
	if err := c.freeRunLease(ctx, a.Thread, a.RunID); err != nil {
		return false, err
	}
	if cancelReq {
		// Cancelled while its worker was dead: nobody else will end it.
		return false, c.setStatus(ctx, tx, a.RunID, StatusCancelled, reason, codeCancelled)
	}
	if attempt >= maxAttempts {
		msg := fmt.Sprintf("%s; the run has had %d executions, its limit", why, attempt)
		if err := c.setStatus(ctx, tx, a.RunID, StatusError, msg, codeFailed); err != nil {
			return false, err
		}
		return false, nil
	}
	res, err := c.river.InsertTx(ctx, tx, a, &river.InsertOpts{Queue: queue, MaxAttempts: maxAttempts})
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE `+c.t.runs+` SET status = 'pending', job_id = $2, error = $3, updated_at = now() WHERE run_id = $1`, a.RunID, res.Job.ID, why); err != nil {
		return false, err
	}
	return true, c.notify(ctx, tx, a.RunID, notice{Status: StatusPending})
}
