package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/graph"
)

// runWorker is the River worker of RunArgs jobs.
type runWorker struct {
	river.WorkerDefaults[RunArgs]
	c *Client
}

// Timeout is the run timeout of WithRunTimeout, or -1 (none) without
// one: River then neither cancels a long run nor rescues it; a run is
// re-queued only when its worker goes silent.
func (w *runWorker) Timeout(*river.Job[RunArgs]) time.Duration {
	if w.c.timeout > 0 {
		return w.c.timeout
	}
	return -1
}

// conflictBackoff is how long a run whose checkpoint write lost the
// thread's head sleeps before it looks again (it is also woken when the
// thread's writer ends).
const conflictBackoff = time.Second

// Work executes one attempt of a run: it takes the thread (or waits,
// rejects or interrupts, per the run's strategy), runs the graph from the
// thread's last checkpoint, and records how it ended.
func (w *runWorker) Work(ctx context.Context, job *river.Job[RunArgs]) error {
	c := w.c
	a := job.Args
	r := c.reg.lookup(a.Graph)
	if r == nil {
		err := fmt.Errorf("%w: %q (run %s on thread %q)", ErrUnknownGraph, a.Graph, a.RunID, a.Thread)
		if ferr := c.failPending(ctx, a.RunID, err); ferr != nil {
			return ferr
		}
		return river.JobCancel(err)
	}
	ctx, untrack := c.track(ctx, job.ID, a.RunID)
	defer untrack()
	if c.fleet.n > 0 {
		if err := c.fleet.gate.enter(ctx); err != nil {
			return fmt.Errorf("worker: run %s on thread %q: wait for a slot of the fleet's %d: %w", a.RunID, a.Thread, c.fleet.n, err)
		}
		defer c.fleet.gate.leave()
	}
	cl, err := c.claim(ctx, job)
	if err != nil {
		return fmt.Errorf("worker: run %s on thread %q: take the thread: %w", a.RunID, a.Thread, err)
	}
	switch cl.action {
	case actDone:
		return nil
	case actReject, actCancelled:
		return river.JobCancel(cl.err)
	case actWait:
		return river.JobSnooze(c.snooze)
	}
	if cl.attempt > 1 {
		if err := c.freeRunLease(ctx, a.Thread, a.RunID); err != nil {
			return fmt.Errorf("worker: run %s on thread %q: %w", a.RunID, a.Thread, err)
		}
	}
	answers, err := c.pinnedAnswers(ctx, a)
	if err != nil {
		return fmt.Errorf("worker: run %s on thread %q: %w", a.RunID, a.Thread, err)
	}
	if cl.followed {
		c.markFollowed(a.RunID)
	}
	n := c.checkpointNotifier(ctx, a.RunID)
	// The run's lease is freed by the statement that records its end
	// (finish), or at the latest here.
	rctx, rel := postgres.WithDeferredRelease(ctx, func(holder string) bool {
		return graph.IsRunLeaseHolder(holder, a.RunID) // not a command's state update
	})
	defer func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = rel.Release(fctx) // not freed, it expires
	}()
	res, runErr := r.run(rctx, runRequest{
		thread:     a.Thread,
		runID:      a.RunID,
		input:      a.Input,
		resume:     a.Resume,
		resumeByID: a.ResumeByID,
		metadata:   a.Metadata,
		limit:      a.RecursionLimit,
		retry:      cl.attempt > 1,
		answers:    answers,
		pin:        c.pinAnswers(a.RunID),
		checkpoint: n.send,
		from:       cl.from,
		saver:      c.saver,
		payload:    a.Payload,
		attempt:    cl.attempt,
	})
	n.close()
	recorded, err := c.finish(ctx, job, cl, res, runErr, rel)
	if res.ended != nil {
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		res.ended(ectx, recorded)
		cancel()
	}
	return err
}

// action is what claim decided.
type action int

const (
	actRun       action = iota // the run holds the thread: execute it
	actDone                    // the run is already over
	actReject                  // the thread is busy and the strategy is Reject
	actWait                    // wait (snooze) and look again
	actCancelled               // the run was cancelled before it ran
)

type claimed struct {
	action   action
	attempt  int     // the run's execution count, this one included (actRun)
	err      error   // why (actReject, actCancelled)
	followed bool    // someone follows the run (actRun)
	from     *string // where a Rollback run forks the thread (actRun)
}

// claim decides, under the thread's advisory lock, whether the run takes
// the thread now. The runs that block it are the thread's other active
// runs that are running or were enqueued before it; a blocking run whose
// River job has ended without finishing it (a worker killed on its last
// attempt, a deleted job) is stale and is closed here.
func (c *Client) claim(ctx context.Context, job *river.Job[RunArgs]) (claimed, error) {
	a := job.Args
	if a.Strategy != Rollback {
		if cl, ok, err := c.claimFast(ctx, job); err != nil || ok {
			return cl, err
		}
	}
	var cl claimed
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		cl = claimed{}
		if err := c.lockThread(ctx, tx, a.Thread); err != nil {
			return err
		}
		var (
			seq       int64
			status    Status
			cancelReq bool
			reason    string
		)
		err := tx.QueryRow(ctx, `SELECT seq, status, cancel_requested, coalesce(cancel_reason, '') FROM `+c.t.runs+` WHERE run_id = $1 FOR UPDATE`, a.RunID).Scan(&seq, &status, &cancelReq, &reason)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			cl.action = actReject
			cl.err = fmt.Errorf("worker: run %s on thread %q has no record in %s (enqueue runs with Client.Enqueue)", a.RunID, a.Thread, c.t.runs)
			return nil
		case err != nil:
			return err
		case status.Done():
			cl.action = actDone
			return nil
		case cancelReq:
			cl.action = actCancelled
			cl.err = fmt.Errorf("worker: run %s on thread %q: %w: %s", a.RunID, a.Thread, ErrCancelled, reason)
			return c.setStatus(ctx, tx, a.RunID, StatusCancelled, reason, codeCancelled)
		}
		blockers, err := c.blockers(ctx, tx, a, seq)
		if err != nil {
			return err
		}
		if len(blockers) > 0 {
			switch a.Strategy {
			case Enqueue:
				cl.action = actWait
				return nil
			case Interrupt, Rollback:
				ids := make([]string, len(blockers))
				running := false
				for i, b := range blockers {
					ids[i] = b.id
					running = running || b.status == StatusRunning
				}
				if err := c.cancelRuns(ctx, tx, ids, c.cancelReason(a)); err != nil {
					return err
				}
				if running {
					cl.action = actWait // until they have stopped
					return nil
				}
			default:
				cl.action = actReject
				msg := fmt.Sprintf("thread is busy with run %s (multitask strategy reject): %v", blockers[0].id, checkpoint.ErrConflict)
				cl.err = &RunError{RunID: a.RunID, Thread: a.Thread, Msg: msg, code: codeConflict}
				return c.setStatus(ctx, tx, a.RunID, StatusError, msg, codeConflict)
			}
		}
		if a.Strategy == Rollback {
			if err := c.rollback(ctx, tx, a); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `UPDATE `+c.t.runs+` SET status = 'running', attempt = attempt + 1, job_id = $2, updated_at = now()
WHERE run_id = $1 RETURNING attempt, rollback_from, EXISTS (SELECT 1 FROM `+c.t.followers+` WHERE run_id = $1 AND expires_at > now())`,
			a.RunID, job.ID).Scan(&cl.attempt, &cl.from, &cl.followed); err != nil {
			return err
		}
		cl.action = actRun
		return c.notify(ctx, tx, a.RunID, notice{Status: StatusRunning})
	})
	return cl, err
}

// claimFast takes the thread in one round trip when nothing stands in the
// way: the run is pending, not cancelled, and no live run is ahead of it.
// Otherwise it reports false and claim decides the slow way.
func (c *Client) claimFast(ctx context.Context, job *river.Job[RunArgs]) (claimed, bool, error) {
	a := job.Args
	payload, _ := json.Marshal(notice{Status: StatusRunning})
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", c.threadKey(a.Thread))
	b.Queue(`WITH me AS (
	SELECT seq FROM `+c.t.runs+` WHERE run_id = $1 AND status = 'pending' AND NOT cancel_requested FOR UPDATE
), upd AS (
	UPDATE `+c.t.runs+` SET status = 'running', attempt = attempt + 1, job_id = $2, updated_at = now()
	WHERE run_id = $1 AND EXISTS (SELECT 1 FROM me) AND NOT EXISTS (
		SELECT 1 FROM `+c.t.runs+` r JOIN `+c.t.riverJob+` j ON j.id = r.job_id, me
		WHERE r.thread_id = $3 AND r.run_id <> $1 AND r.status IN ('pending', 'running') AND (r.status = 'running' OR r.seq < me.seq)
		AND j.state NOT IN ('completed', 'cancelled', 'discarded'))
	RETURNING attempt
)
SELECT attempt, CASE WHEN `+c.followedSQL("$1")+` THEN pg_notify($4, $5) END, `+c.followedSQL("$1")+` FROM upd`, a.RunID, job.ID, a.Thread, c.channel(a.RunID), string(payload))
	b.Queue("COMMIT")
	br := c.pool.SendBatch(ctx, b)
	var (
		cl claimed
		ok bool
	)
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&cl.attempt, nil, &cl.followed)
		switch {
		case err == nil:
			ok, cl.action = true, actRun
		case errors.Is(err, pgx.ErrNoRows):
			err = nil
		}
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return cl, ok && err == nil, err
}

type blocker struct {
	id     string
	status Status
}

// blockers returns the runs that hold the thread ahead of run a (whose
// seq is seq), closing the stale ones.
func (c *Client) blockers(ctx context.Context, tx pgx.Tx, a RunArgs, seq int64) ([]blocker, error) {
	rows, err := tx.Query(ctx, `SELECT r.run_id, r.status, j.state FROM `+c.t.runs+` r LEFT JOIN `+c.t.riverJob+` j ON j.id = r.job_id
WHERE r.thread_id = $1 AND r.run_id <> $2 AND r.status IN ('pending', 'running') AND (r.status = 'running' OR r.seq < $3)
ORDER BY r.seq`, a.Thread, a.RunID, seq)
	if err != nil {
		return nil, err
	}
	var (
		out   []blocker
		stale []blocker
		state []string
	)
	for rows.Next() {
		var (
			b  blocker
			js *string
		)
		if err := rows.Scan(&b.id, &b.status, &js); err != nil {
			rows.Close()
			return nil, err
		}
		switch {
		case js == nil:
			stale, state = append(stale, b), append(state, "deleted")
		case *js == "completed" || *js == "cancelled" || *js == "discarded":
			stale, state = append(stale, b), append(state, *js)
		default:
			out = append(out, b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, b := range stale {
		st, code := StatusError, codeFailed
		if state[i] == "cancelled" {
			st, code = StatusCancelled, codeCancelled
		}
		if err := c.setStatus(ctx, tx, b.id, st, fmt.Sprintf("its River job ended (%s) without finishing the run", state[i]), code); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setStatus ends or changes a run's status with a message, and notifies;
// a run that ends wakes the next pending run of its thread.
func (c *Client) setStatus(ctx context.Context, tx pgx.Tx, runID string, st Status, msg string, code errorCode) error {
	if _, err := tx.Exec(ctx, `WITH upd AS (
	UPDATE `+c.t.runs+` SET status = $2, error = nullif($3, ''), error_code = nullif($4, ''), updated_at = now() WHERE run_id = $1
	RETURNING thread_id, status
), ended AS (
	SELECT thread_id FROM upd WHERE status IN ('success', 'error', 'interrupted', 'cancelled')
), `+c.wakeSQL("$5")+`
SELECT n FROM told`, runID, string(st), msg, string(code), c.schema); err != nil {
		return err
	}
	return c.notify(ctx, tx, runID, notice{Status: st})
}

// failPending ends a run that never got the thread with an error.
func (c *Client) failPending(ctx context.Context, runID string, cause error) error {
	return pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE `+c.t.runs+` SET status = 'error', error = $2, error_code = 'failed', updated_at = now() WHERE run_id = $1 AND status = 'pending'`, runID, cause.Error())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		if err := c.notify(ctx, tx, runID, notice{Status: StatusError}); err != nil {
			return err
		}
		var thread string
		if err := tx.QueryRow(ctx, `SELECT thread_id FROM `+c.t.runs+` WHERE run_id = $1`, runID).Scan(&thread); err != nil {
			return err
		}
		return c.wakeNext(ctx, tx, thread)
	})
}

// finish records how an execution ended and tells River what to do with
// the job: complete it, retry it (a transient failure: the next attempt
// resumes from the last checkpoint), snooze it (a conflict while waiting
// is allowed), or cancel it (a permanent failure, a rejection, a
// cancellation). It returns the status it recorded: "" when it recorded
// none (another execution took the run over, or the write failed).
func (c *Client) finish(ctx context.Context, job *river.Job[RunArgs], cl claimed, res runResult, runErr error, rel *postgres.DeferredRelease) (Status, error) {
	a := job.Args
	var (
		st   Status
		msg  string
		code errorCode
		ret  error
	)
	if runErr != nil {
		msg = runErr.Error()
	}
	bst, bcode, bret, busy := c.onBusy(ctx, a, runErr)
	switch {
	case busy && !errors.Is(context.Cause(ctx), river.ErrJobCancelledRemotely):
		st, code, ret = bst, bcode, bret
	case runErr == nil && len(res.interrupts) > 0:
		st = StatusInterrupted
	case runErr == nil:
		st = StatusSuccess
	case errors.Is(context.Cause(ctx), river.ErrJobCancelledRemotely):
		st, code, ret = StatusCancelled, codeCancelled, river.JobCancel(runErr)
	case errors.Is(runErr, checkpoint.ErrConflict) && a.Strategy == Reject:
		st, code, ret = StatusError, codeConflict, river.JobCancel(runErr)
	case errors.Is(runErr, checkpoint.ErrConflict):
		st, ret = StatusPending, river.JobSnooze(conflictBackoff)
	case !transient(runErr):
		st, code, ret = StatusError, codeFailed, river.JobCancel(runErr)
	case job.Attempt >= job.MaxAttempts:
		st, code, ret = StatusError, codeFailed, runErr
	default:
		st, ret = StatusPending, runErr // River retries; the next attempt resumes
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var result, interrupts []byte
	if st == StatusSuccess || st == StatusInterrupted {
		result = res.output
	}
	if len(res.interrupts) > 0 {
		interrupts, _ = json.Marshal(res.interrupts) // they came from JSON
	}
	// One statement: only the execution that holds the run records its
	// end (after a rescue of a job that was still running, the other
	// execution's outcome stands); a run cancelled while failing is
	// cancelled, since River will not retry a job marked for
	// cancellation.
	// The run's lease, when its saver's release was deferred to here and
	// its row is in this database and schema, is deleted by the same
	// statement.
	freeLease, args := "", []any{a.RunID, cl.attempt, string(st), result, interrupts, msg, string(code), c.channel(a.RunID), c.schema}
	if p, ok := rel.Pending(); ok && p.Pool == c.pool && p.Table == c.t.leases {
		freeLease = `freed AS (DELETE FROM ` + c.t.leases + ` WHERE thread_id = $10 AND token = $11), `
		args = append(args, p.Thread, p.Token)
	}
	var recorded Status
	err := c.pool.QueryRow(fctx, `WITH `+freeLease+`upd AS (
	UPDATE `+c.t.runs+` SET
		status = CASE WHEN cancel_requested AND $3 = 'pending' THEN 'cancelled' ELSE $3 END,
		result = $4, interrupts = $5,
		error = CASE WHEN (cancel_requested AND $3 = 'pending') OR $3 = 'cancelled' THEN coalesce(cancel_reason, nullif($6, '')) ELSE nullif($6, '') END,
		error_code = CASE WHEN cancel_requested AND $3 = 'pending' THEN 'cancelled' ELSE nullif($7, '') END,
		updated_at = now()
	WHERE run_id = $1 AND status = 'running' AND attempt = $2
	RETURNING status, thread_id
), ended AS (
	SELECT thread_id FROM upd WHERE status IN ('success', 'error', 'interrupted', 'cancelled')
), `+c.wakeSQL("$9")+`
SELECT status, CASE WHEN `+c.followedSQL("$1")+` THEN pg_notify($8, json_build_object('status', status)::text) END, (SELECT n FROM told) FROM upd`,
		args...).Scan(&recorded, nil, nil)
	if freeLease != "" && (err == nil || errors.Is(err, pgx.ErrNoRows)) {
		rel.Settled()
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", nil // another execution took the run over
	case err == nil && recorded == StatusCancelled && st != StatusCancelled:
		ret = river.JobCancel(runErr)
	}
	if err != nil {
		// The run stays "running" with this attempt; River retries the
		// job, whose next attempt takes the run over and resumes it.
		if runErr != nil {
			return "", fmt.Errorf("worker: run %s on thread %q: %w (and recording it failed: %w)", a.RunID, a.Thread, runErr, err)
		}
		return "", fmt.Errorf("worker: run %s on thread %q: record the result: %w", a.RunID, a.Thread, err)
	}
	if ret != nil && runErr != nil && ret == runErr {
		return recorded, fmt.Errorf("worker: run %s on thread %q: %w", a.RunID, a.Thread, runErr)
	}
	return recorded, ret
}

// transient reports whether an execution's error may go away on another
// attempt: the database or the network failed, or the execution ran out
// of time or was stopped. A node's failure (after its own retry policy), a
// routing error, a recursion limit, corrupt data, bad input are
// permanent: retrying would fail the same way.
func transient(err error) bool {
	var (
		ne *graph.NodeError
		re *graph.RouteError
	)
	switch {
	case errors.As(err, &ne), errors.As(err, &re), errors.Is(err, errInput),
		errors.Is(err, graph.ErrRecursionLimit), errors.Is(err, graph.ErrInvalidUpdate),
		errors.Is(err, checkpoint.ErrCorrupt), errors.Is(err, graph.ErrInterrupted),
		errors.Is(err, graph.ErrNothingToResume), errors.Is(err, graph.ErrAmbiguousResume),
		errors.Is(err, graph.ErrInvalidRoute):
		return false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "53", "57", "58": // connection, resources, operator intervention, system
			return true
		}
		return pe.Code == "40001" || pe.Code == "40P01" // serialization failure, deadlock
	}
	var (
		ce   *pgconn.ConnectError
		nerr net.Error
	)
	return errors.As(err, &ce) || errors.As(err, &nerr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// pinnedAnswers returns the answers an earlier execution of a run with a
// positional resume value pinned to the interrupt it answered, or nil.
func (c *Client) pinnedAnswers(ctx context.Context, a RunArgs) (map[string]json.RawMessage, error) {
	if len(a.Resume) == 0 {
		return nil, nil
	}
	var answers map[string]json.RawMessage
	if err := c.pool.QueryRow(ctx, `SELECT answers FROM `+c.t.runs+` WHERE run_id = $1`, a.RunID).Scan(&answers); err != nil {
		return nil, fmt.Errorf("read pinned answers: %w", err)
	}
	return answers, nil
}

// pinAnswers returns the func that records which interrupt a run's
// positional resume value answers.
func (c *Client) pinAnswers(runID string) func(context.Context, map[string]json.RawMessage) error {
	return func(ctx context.Context, answers map[string]json.RawMessage) error {
		if _, err := c.pool.Exec(ctx, `UPDATE `+c.t.runs+` SET answers = $2 WHERE run_id = $1`, runID, answers); err != nil {
			return fmt.Errorf("worker: run %s: pin its answer: %w", runID, err)
		}
		return nil
	}
}
