package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/worker"
)

// jobPayload is what the server puts in a run's River job for the
// process that executes it: the decoded run request.
type jobPayload struct {
	Graph     string          `json:"graph"`
	In        RunInput        `json:"in"`
	Modes     []string        `json:"modes"`
	Update    json.RawMessage `json:"update,omitempty"`
	Temporary bool            `json:"temporary,omitempty"`
	Keep      bool            `json:"keep,omitempty"`
	Webhook   string          `json:"webhook,omitempty"`
	Strategy  string          `json:"strategy"`
}

// enqueueRun creates a run as a worker job: the job, the thread's record
// and the run's record in one transaction, so that a run refused by its
// strategy stores nothing.
func (s *Server) enqueueRun(ctx context.Context, tid string, body json.RawMessage) (RunRecord, error) {
	run, t, err := s.newRun(ctx, tid, body)
	if err != nil {
		return RunRecord{}, err
	}
	run.cancel() // its context is the executing process's
	p := jobPayload{Graph: run.g.ID(), In: run.in, Modes: run.modes, Update: run.update, Temporary: run.temporary,
		Keep: run.keep, Webhook: run.webhook, Strategy: run.rec.MultitaskStrategy}
	t.Status, t.UpdatedAt = StatusBusy, run.rec.CreatedAt
	st := s.cl.st
	err = pgx.BeginFunc(context.WithoutCancel(ctx), st.pool, func(tx pgx.Tx) error {
		if _, err := s.cl.c.EnqueueTx(ctx, tx, worker.Request{Graph: p.Graph, Thread: t.ThreadID, RunID: run.rec.RunID,
			Strategy: worker.Strategy(p.Strategy), Payload: p}); err != nil {
			return err
		}
		if err := st.putThread(ctx, tx, *t); err != nil {
			return err
		}
		return st.putRun(ctx, tx, run.rec)
	})
	if err != nil {
		return RunRecord{}, fmt.Errorf("thread %q: %w", t.ThreadID, err)
	}
	return run.rec, nil
}

// createClusterRun answers a run request on a server with workers.
func (s *Server) createClusterRun(w http.ResponseWriter, r *http.Request, mode runMode, body json.RawMessage) {
	rec, err := s.enqueueRun(r.Context(), r.PathValue("tid"), body)
	if err != nil {
		fail(w, err)
		return
	}
	loc := runLocation(rec)
	w.Header().Set("Content-Location", loc)
	cancelOnDisconnect := (&liveRun{}).onDisconnectCancel(body)
	switch mode {
	case modeBackground:
		writeJSON(w, 200, runJSON(rec))
	case modeWait:
		s.clusterWait(w, r, rec, cancelOnDisconnect)
	case modeStream:
		w.Header().Set("Location", loc+"/stream")
		s.clusterStream(w, r, rec, 0, cancelOnDisconnect)
	}
}

// clusterWait writes a run's result once it ended.
func (s *Server) clusterWait(w http.ResponseWriter, r *http.Request, rec RunRecord, cancelOnDisconnect bool) {
	if err := s.cl.waitEnd(r.Context(), rec.RunID); err != nil {
		if r.Context().Err() != nil {
			if cancelOnDisconnect {
				_ = s.cl.c.Cancel(context.WithoutCancel(r.Context()), rec.RunID)
			}
			return
		}
		fail(w, err)
		return
	}
	res, err := s.cl.result(r.Context(), rec.RunID)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	_, _ = w.Write(res)
}

// clusterStream sends a run's events after id.
func (s *Server) clusterStream(w http.ResponseWriter, r *http.Request, rec RunRecord, from int, cancelOnDisconnect bool) {
	err := s.writeStream(w, r, func(ctx context.Context, tick <-chan time.Time, emit func(*sseEvent) error) error {
		return s.cl.follow(ctx, rec.RunID, from, tick, emit)
	})
	if err != nil && cancelOnDisconnect {
		_ = s.cl.c.Cancel(context.WithoutCancel(r.Context()), rec.RunID)
	}
}

// clusterCancel cancels a run on a server with workers.
func (s *Server) clusterCancel(w http.ResponseWriter, r *http.Request, rec RunRecord, action string, wait bool) {
	ctx := r.Context()
	wr, err := s.cl.c.Run(ctx, rec.RunID)
	if err != nil {
		fail(w, err)
		return
	}
	if wr.Status.Done() {
		writeError(w, http.StatusConflict, fmt.Sprintf("run %q of thread %q is %s, not pending or running", rec.RunID, rec.ThreadID, runStatus(wr.Status)))
		return
	}
	if err := s.cl.c.Cancel(ctx, rec.RunID); err != nil {
		fail(w, err)
		return
	}
	done := func(ctx context.Context) error {
		if err := s.cl.waitEnd(ctx, rec.RunID); err != nil {
			return err
		}
		if action != strategyRollback {
			return nil
		}
		a, err := s.lookupAssistant(ctx, rec.AssistantID)
		if err != nil {
			return err
		}
		if err := s.rollback(ctx, &liveRun{rec: rec, g: a.g}); err != nil {
			return err
		}
		return s.store.DeleteRun(ctx, rec.ThreadID, rec.RunID)
	}
	if wait {
		if err := done(ctx); err != nil {
			fail(w, err)
			return
		}
	} else if action == strategyRollback {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := done(s.ctx); err != nil && s.opts.logf != nil {
				s.opts.logf("server: roll back run %q: %v", rec.RunID, err)
			}
		}()
	}
	w.WriteHeader(http.StatusNoContent)
}

// cancelClusterThread cancels the active runs of a thread and waits for
// their ends.
func (s *Server) cancelClusterThread(ctx context.Context, tid string) error {
	runs, err := s.cl.c.Runs(ctx, tid)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Status.Done() {
			continue
		}
		if err := s.cl.c.Cancel(ctx, r.ID); err != nil && !errors.Is(err, worker.ErrNotFound) {
			return err
		}
		if err := s.cl.waitEnd(ctx, r.ID); err != nil {
			return err
		}
	}
	return nil
}

// work is the worker.RunFunc of every graph: one execution of a run, in
// whichever process took its job. Its events go to the events table; the
// records, the end event and the webhook follow once the worker recorded
// the end (Outcome.Ended), so that whoever reads the end sees the thread
// free.
func (s *Server) work(ctx context.Context, ex worker.Execution) (worker.Outcome, error) {
	var p jobPayload
	if err := json.Unmarshal(ex.Payload, &p); err != nil {
		return worker.Outcome{}, &InputError{Err: fmt.Errorf("run %q: its job's payload: %w", ex.RunID, err)}
	}
	a, ok := s.byID[p.Graph]
	if !ok {
		return worker.Outcome{}, &InputError{Err: fmt.Errorf("run %q: no graph %q in this process", ex.RunID, p.Graph)}
	}
	rec, err := s.store.GetRun(ctx, ex.Thread, ex.RunID)
	if errors.Is(err, ErrNotFound) {
		now := s.opts.now().UTC()
		rec = RunRecord{RunID: ex.RunID, ThreadID: ex.Thread, AssistantID: a.ID, MultitaskStrategy: p.Strategy, CreatedAt: now}
	} else if err != nil {
		return worker.Outcome{}, err
	}
	log, err := s.cl.openLog(ctx, ex.Thread, ex.RunID, s.opts.logf)
	if err != nil {
		return worker.Outcome{}, err
	}
	run := &liveRun{rec: rec, g: a.g, in: p.In, modes: p.Modes, update: p.Update, temporary: p.Temporary, keep: p.Keep,
		webhook: p.Webhook, pg: log, ctx: ctx, cancel: func() {}}
	fresh := true
	if ex.Attempt > 1 {
		// An earlier execution that saved a checkpoint of the run applied
		// its input, update and answers: continue the thread instead.
		hs, err := a.g.History(ctx, ex.Thread, HistoryQuery{Limit: 1, Metadata: map[string]any{"run_id": ex.RunID}})
		if err != nil {
			log.close()
			return worker.Outcome{}, err
		}
		fresh = len(hs) == 0
	}
	if !fresh {
		run.in.Input, run.in.HasResume, run.in.Resume, run.in.ResumeByID, run.in.CheckpointID = nil, false, nil, nil, ""
		run.in.Goto, run.in.Sends = nil, nil
		run.update = nil
	}
	if fresh && p.Strategy == strategyRollback {
		if err := s.forgetRolledBack(ctx, ex.Thread); err != nil {
			log.close()
			return worker.Outcome{}, err
		}
		if ex.From != nil && *ex.From == "" {
			if err := a.g.Saver().DeleteThread(ctx, ex.Thread); err != nil {
				log.close()
				return worker.Outcome{}, err
			}
		} else if ex.From != nil {
			run.in.CheckpointID = *ex.From
		}
	}
	// The record stays pending: its reader takes running from the
	// worker's record (overlay), one commit fewer on the run's path.
	run.rec.Status = RunRunning
	conv := newConverter(s, run)
	conv.emit("metadata", "", map[string]any{"run_id": ex.RunID, "thread_id": ex.Thread, "attempt": ex.Attempt})
	runErr := s.runGraph(ctx, run, conv)
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err()
	}
	out := worker.Outcome{Ended: func(ctx context.Context, st worker.Status) { s.ended(ctx, run, conv, st, runErr) }}
	if runErr != nil {
		return out, runErr
	}
	out.Output = conv.result(nil)
	if conv.interrupted {
		out.Interrupts = conv.interrupts
		if len(out.Interrupts) == 0 {
			out.Interrupts = []graph.Interruption{{}}
		}
	}
	return out, nil
}

// forgetRolledBack deletes the records of the runs of a thread that a
// run with the rollback strategy rolled back (the worker deleted theirs).
func (s *Server) forgetRolledBack(ctx context.Context, tid string) error {
	recs, err := s.store.ListRuns(ctx, tid, "", 100, 0)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if _, err := s.cl.c.Run(ctx, rec.RunID); errors.Is(err, worker.ErrNotFound) {
			if err := s.store.DeleteRun(ctx, tid, rec.RunID); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// ended finishes a run's execution once the worker recorded st: the
// records, the thread's status, the result, the end event, the webhook.
// An execution that is to be retried only writes its events.
func (s *Server) ended(ctx context.Context, run *liveRun, conv *converter, st worker.Status, runErr error) {
	log := run.pg
	if !st.Done() {
		log.close()
		return
	}
	status := runStatus(st)
	action := ""
	if st == worker.StatusCancelled {
		action, runErr = strategyInterrupt, nil
	}
	if status == RunError {
		if runErr == nil {
			runErr = errors.New("the run failed")
		}
		conv.emit("error", "", errorJSON(runErr))
	}
	if status != RunError {
		runErr = nil
	}
	tid := run.rec.ThreadID
	rec := s.setStatus(run, status)
	if run.temporary && !run.keep {
		_ = run.g.Saver().DeleteThread(ctx, tid)
	}
	result := conv.result(runErr)
	log.result(result)
	conv.emit("end", "", map[string]any{"run_id": rec.RunID, "status": status})
	// The records, the result and the events left, in one commit.
	evs := log.detach()
	pg := s.cl.st
	// The thread's state at rest, read before the transaction holds a
	// connection (see RestingStatus).
	var rest *State
	if !run.temporary || run.keep {
		rest, _ = run.g.State(ctx, tid, "")
	}
	err := pgx.BeginFunc(ctx, pg.pool, func(tx pgx.Tx) error {
		if run.temporary && !run.keep {
			if err := pg.deleteThreadRecords(ctx, tx, tid); err != nil {
				return err
			}
		} else {
			if err := pg.putRun(ctx, tx, rec); err != nil {
				return err
			}
			t, err := pg.getThread(ctx, tx, tid, true)
			if err == nil {
				t.UpdatedAt = s.opts.now().UTC()
				t.Status, t.Error = StatusIdle, ""
				switch {
				case status == RunError:
					t.Status, t.Error = StatusError, runErr.Error()
				case status == RunInterrupted && action == "":
					t.Status = StatusInterrupted
				}
				t.Status = restingStatus(t, rest)
				if err := pg.putThread(ctx, tx, t); err != nil {
					return err
				}
			} else if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return log.write(ctx, tx, evs)
	})
	if err != nil {
		if s.opts.logf != nil {
			s.opts.logf("server: run %q: record its end: %v", rec.RunID, err)
		}
		for attempt := 0; attempt < 3 && log.write(ctx, pg.pool, evs) != nil; attempt++ {
			time.Sleep(100 * time.Millisecond) // the end event at least
		}
	}
	run.result, run.status = result, status
	if run.webhook != "" {
		s.postWebhook(run)
	}
}
