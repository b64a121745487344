package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/stategraph/stategraph/checkpoint"
)

// Request describes a run to enqueue. The three kinds of run are:
//
//   - start or continue a thread with an input: Input set;
//   - resume a thread where it stopped (after an error or a static
//     interrupt): neither Input nor Resume;
//   - answer the pending interrupt of a thread: Resume (or ResumeByID).
type Request struct {
	// Graph is the name the graph was registered under. Required.
	Graph string
	// Thread is the thread the run advances. Required.
	Thread string
	// Input is encoded as JSON and given to the graph's InputFunc; nil
	// continues the thread with a zero input.
	Input any
	// Resume answers the thread's pending interrupt (graph.Resume); nil
	// means no answer. To answer with JSON null, pass
	// json.RawMessage("null").
	Resume any
	// ResumeByID answers pending interrupts by id (graph.ResumeByID).
	ResumeByID map[string]any
	// Strategy says what happens when the thread is busy (default
	// Reject).
	Strategy Strategy
	// Metadata is stored with every checkpoint of the run
	// (graph.WithMetadata).
	Metadata map[string]any
	// RecursionLimit overrides graph.DefaultRecursionLimit when positive.
	RecursionLimit int
	// RunID names the run; empty gives a new UUIDv7. It is recorded in
	// the metadata of the run's checkpoints.
	RunID string
	// Payload is encoded as JSON and handed to the graph's RunFunc (see
	// RegisterFunc) as Execution.Payload; graphs registered with
	// Register ignore it.
	Payload any
}

// RunArgs are the arguments of the River job that executes a run. The
// Client builds them; they are exported because River needs them to be,
// and so that their JSON is documented.
type RunArgs struct {
	Graph          string                     `json:"graph"`
	Thread         string                     `json:"thread_id"`
	RunID          string                     `json:"run_id"`
	Input          json.RawMessage            `json:"input,omitempty"`
	Resume         json.RawMessage            `json:"resume,omitempty"`
	ResumeByID     map[string]json.RawMessage `json:"resume_by_id,omitempty"`
	Strategy       Strategy                   `json:"multitask_strategy"`
	Metadata       map[string]any             `json:"metadata,omitempty"`
	RecursionLimit int                        `json:"recursion_limit,omitempty"`
	Payload        json.RawMessage            `json:"payload,omitempty"`
}

// Kind is the River job kind of runs.
func (RunArgs) Kind() string { return "stategraph_run" }

// Enqueue enqueues a run and returns its id. See EnqueueTx.
func (c *Client) Enqueue(ctx context.Context, req Request) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var err error
		id, err = c.EnqueueTx(ctx, tx, req)
		return err
	})
	return id, err
}

// EnqueueTx enqueues a run inside the caller's transaction: the run and
// its River job exist once tx commits, and not at all if it rolls back.
// It returns the run's id.
//
// With the Reject strategy, a thread that has an active run (pending or
// running) makes it fail with an error wrapping checkpoint.ErrConflict
// that names the thread and the run holding it, and nothing is enqueued.
// With the other strategies, a thread that has WithMaxQueued pending runs
// makes it fail with an error wrapping ErrQueueFull. To decide this
// without a race, it takes a transaction-scoped advisory lock on the
// thread, held until tx ends.
func (c *Client) EnqueueTx(ctx context.Context, tx pgx.Tx, req Request) (string, error) {
	args, err := c.args(req)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("worker: enqueue on thread %q: %w", req.Thread, err)
	}
	// The thread's lock, then what holds it and how many wait, in one
	// round trip: each statement of a batch reads after the one before.
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", c.threadKey(args.Thread))
	b.Queue(`SELECT (SELECT r.run_id FROM `+c.t.runs+` r LEFT JOIN `+c.t.riverJob+` j ON j.id = r.job_id
	WHERE r.thread_id = $1 AND r.status IN ('pending', 'running') AND j.state NOT IN ('completed', 'cancelled', 'discarded')
	ORDER BY r.seq LIMIT 1),
	(SELECT count(*) FROM `+c.t.runs+` WHERE thread_id = $1 AND status = 'pending')`, args.Thread)
	var (
		other   *string
		pending int
	)
	br := tx.SendBatch(ctx, b)
	_, err = br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&other, &pending)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fail(err)
	case args.Strategy == Reject && other != nil:
		return fail(fmt.Errorf("thread is busy with run %s (strategy reject): %w", *other, checkpoint.ErrConflict))
	case args.Strategy != Reject && c.maxQueued > 0 && pending >= c.maxQueued:
		return fail(fmt.Errorf("%w: %d runs are pending, the limit (WithMaxQueued) is %d", ErrQueueFull, pending, c.maxQueued))
	}
	res, err := c.river.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: c.queue})
	if err != nil {
		return fail(err)
	}
	payload, _ := json.Marshal(notice{Status: StatusPending})
	if _, err := tx.Exec(ctx, `WITH ins AS (
	INSERT INTO `+c.t.runs+` (run_id, thread_id, graph, status, strategy, job_id) VALUES ($1, $2, $3, 'pending', $4, $5) RETURNING run_id
)
SELECT CASE WHEN `+c.followedSQL("$1")+` THEN pg_notify($6, $7) END FROM ins`, args.RunID, args.Thread, args.Graph, string(args.Strategy), res.Job.ID, c.channel(args.RunID), string(payload)); err != nil {
		return fail(err)
	}
	return args.RunID, nil
}

// args validates a request and encodes it as job arguments.
func (c *Client) args(req Request) (RunArgs, error) {
	a := RunArgs{Graph: req.Graph, Thread: req.Thread, RunID: req.RunID, Strategy: req.Strategy, Metadata: req.Metadata, RecursionLimit: req.RecursionLimit}
	if a.Graph == "" || a.Thread == "" {
		return a, errors.New("worker: enqueue: a run needs a graph and a thread")
	}
	if a.Strategy == "" {
		a.Strategy = Reject
	}
	if !a.Strategy.valid() {
		return a, fmt.Errorf("worker: enqueue on thread %q: unknown multitask strategy %q", a.Thread, a.Strategy)
	}
	if req.Input != nil && (req.Resume != nil || len(req.ResumeByID) > 0) {
		return a, fmt.Errorf("worker: enqueue on thread %q: a run either starts with an input or answers interrupts, not both", a.Thread)
	}
	if req.Resume != nil && len(req.ResumeByID) > 0 {
		return a, fmt.Errorf("worker: enqueue on thread %q: give Resume or ResumeByID, not both", a.Thread)
	}
	if a.RunID == "" {
		a.RunID = uuid.Must(uuid.NewV7()).String()
	}
	enc := func(what string, v any) (json.RawMessage, error) {
		if v == nil {
			return nil, nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("worker: enqueue on thread %q: encode %s: %w", a.Thread, what, err)
		}
		return data, nil
	}
	var err error
	if a.Input, err = enc("input", req.Input); err != nil {
		return a, err
	}
	if a.Resume, err = enc("resume value", req.Resume); err != nil {
		return a, err
	}
	if a.Payload, err = enc("payload", req.Payload); err != nil {
		return a, err
	}
	if len(req.ResumeByID) > 0 {
		a.ResumeByID = make(map[string]json.RawMessage, len(req.ResumeByID))
		for id, v := range req.ResumeByID {
			data, err := enc("resume value "+id, v)
			if err != nil {
				return a, err
			}
			if data == nil {
				data = json.RawMessage("null")
			}
			a.ResumeByID[id] = data
		}
	}
	return a, nil
}

// lockThread serializes, until tx ends, the decisions about which run
// holds the thread: enqueueing with Reject, and a run taking the thread.
func (c *Client) lockThread(ctx context.Context, tx pgx.Tx, thread string) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", c.threadKey(thread))
	return err
}

// threadKey is the text whose hash is the thread's advisory lock key.
func (c *Client) threadKey(thread string) string {
	return "stategraph/worker/" + c.schema + "/" + thread
}

// Cancel cancels a run: a pending one at once, a running one through
// River's job cancellation (its worker stops at the next chance and the
// thread keeps the checkpoints it reached). The run ends with
// StatusCancelled. Cancelling a finished run does nothing; an unknown id
// is ErrNotFound.
func (c *Client) Cancel(ctx context.Context, runID string) error {
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var thread string
		if err := tx.QueryRow(ctx, `SELECT thread_id FROM `+c.t.runs+` WHERE run_id = $1`, runID).Scan(&thread); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: %s", ErrNotFound, runID)
			}
			return err
		}
		if err := c.lockThread(ctx, tx, thread); err != nil {
			return err
		}
		return c.cancelRuns(ctx, tx, []string{runID}, "cancelled by request")
	})
	if err != nil {
		return fmt.Errorf("worker: cancel run %s: %w", runID, err)
	}
	return nil
}

// cancelRuns cancels active runs, with the thread lock held: a pending
// one ends at once; a running one is marked and its job cancelled, and
// its worker ends it when it stops.
func (c *Client) cancelRuns(ctx context.Context, tx pgx.Tx, ids []string, why string) error {
	rows, err := tx.Query(ctx, `UPDATE `+c.t.runs+` SET cancel_requested = true, cancel_reason = $2,
	status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,
	error = CASE WHEN status = 'pending' THEN $2 ELSE error END,
	error_code = CASE WHEN status = 'pending' THEN 'cancelled' ELSE error_code END,
	updated_at = now()
WHERE run_id = ANY($1) AND status IN ('pending', 'running')
RETURNING run_id, status, job_id`, ids, why)
	if err != nil {
		return err
	}
	type hit struct {
		id     string
		status Status
		job    *int64
	}
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.status, &h.job); err != nil {
			return err
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, h := range hits {
		if h.job != nil {
			if _, err := c.river.JobCancelTx(ctx, tx, *h.job); err != nil && !errors.Is(err, river.ErrNotFound) {
				return fmt.Errorf("cancel the job of run %s: %w", h.id, err)
			}
		}
		if h.status == StatusCancelled {
			if err := c.notify(ctx, tx, h.id, notice{Status: StatusCancelled}); err != nil {
				return err
			}
		}
	}
	if len(hits) > 0 {
		// A cancelled pending run may have been the thread's next.
		var thread string
		if err := tx.QueryRow(ctx, `SELECT thread_id FROM `+c.t.runs+` WHERE run_id = $1`, hits[0].id).Scan(&thread); err != nil {
			return err
		}
		return c.wakeNext(ctx, tx, thread)
	}
	return nil
}
