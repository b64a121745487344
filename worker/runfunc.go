package worker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// Execution is one execution of a run, as a RunFunc is given it.
type Execution struct {
	// Thread and RunID name the run. The RunFunc runs the graph on
	// Thread with RunID in its checkpoints' metadata (graph.WithRunID):
	// a retry finds what an earlier execution did by it.
	Thread, RunID string
	// Input, Resume and ResumeByID are the request's, encoded as JSON.
	Input      json.RawMessage
	Resume     json.RawMessage
	ResumeByID map[string]json.RawMessage
	// Metadata and RecursionLimit are the request's.
	Metadata       map[string]any
	RecursionLimit int
	// Payload is the request's Payload as JSON.
	Payload json.RawMessage
	// Attempt counts the executions of the run that got the thread, this
	// one included. Above 1, an earlier execution may have applied the
	// input already: a RunFunc that finds a checkpoint of RunID on the
	// thread continues the thread instead of applying it again.
	Attempt int
	// From, when set, is where a run with the Rollback strategy starts:
	// a fork from that checkpoint id, or, when "", a fresh thread (the
	// RunFunc deletes the thread first). Only an execution that has not
	// yet saved a checkpoint of the run applies it.
	From *string
	// Checkpoint, when the RunFunc calls it with each checkpoint the run
	// saves, tells the run's followers (Follow) about it.
	Checkpoint func(checkpoint.Config, checkpoint.Metadata)
	// Saver is the Client's checkpointer.
	Saver checkpoint.Saver
}

// Outcome is how a RunFunc's execution ended without error.
type Outcome struct {
	// Output is stored as the run's Result.
	Output json.RawMessage
	// Interrupts, when not empty, end the run as StatusInterrupted.
	Interrupts []graph.Interruption
	// Ended, when set, is called once the worker has recorded how the
	// execution ended, also when the RunFunc returned an error, with the
	// status recorded: a final one (Status.Done), StatusPending when the
	// run will be retried, or "" when nothing was recorded (another
	// execution holds the run, or the write failed). What a run's end
	// must cause — a notice to clients, a webhook — belongs here: when
	// it is called, the run's record shows the thread free.
	Ended func(ctx context.Context, st Status)
}

// RunFunc executes one execution of a run of a graph whose inputs and
// events the caller handles itself (package server registers its graphs
// so, to stream a run's events to HTTP clients). Its error is judged as
// a graph's is: transient ones are retried, the others end the run with
// StatusError; a cancelled run's ctx is cancelled.
type RunFunc func(ctx context.Context, ex Execution) (Outcome, error)

// RegisterFunc adds a graph under name whose executions f performs; see
// Register for the rules every graph follows. It panics if name is empty
// or taken, or f is nil.
func RegisterFunc(r *Registry, name string, f RunFunc) {
	if name == "" {
		panic("worker: RegisterFunc: empty graph name")
	}
	if f == nil {
		panic(fmt.Sprintf("worker: RegisterFunc %q: nil func", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.graphs == nil {
		r.graphs = map[string]runner{}
	}
	if _, ok := r.graphs[name]; ok {
		panic(fmt.Sprintf("worker: RegisterFunc: graph %q is already registered", name))
	}
	r.graphs[name] = funcRunner(f)
}

type funcRunner RunFunc

func (f funcRunner) run(ctx context.Context, req runRequest) (runResult, error) {
	out, err := callSafely(func() (Outcome, error) {
		return f(ctx, Execution{
			Thread: req.thread, RunID: req.runID, Input: req.input, Resume: req.resume, ResumeByID: req.resumeByID,
			Metadata: req.metadata, RecursionLimit: req.limit, Payload: req.payload, Attempt: req.attempt,
			From: req.from, Checkpoint: req.checkpoint, Saver: req.saver,
		})
	})
	res := runResult{ended: out.Ended}
	if err != nil {
		return res, err
	}
	res.output, res.interrupts = out.Output, out.Interrupts
	if res.output == nil {
		res.output = json.RawMessage("null")
	}
	return res, nil
}

// Busy reports whether the thread has a run that is pending or running.
func (c *Client) Busy(ctx context.Context, thread string) (bool, error) {
	var busy bool
	err := c.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+c.t.runs+` r LEFT JOIN `+c.t.riverJob+` j ON j.id = r.job_id
WHERE r.thread_id = $1 AND r.status IN ('pending', 'running') AND j.state NOT IN ('completed', 'cancelled', 'discarded'))`, thread).Scan(&busy)
	if err != nil {
		return false, fmt.Errorf("worker: is thread %q busy: %w", thread, err)
	}
	return busy, nil
}
