package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// threadRuns is what a thread has live in this server: the run executing
// on it (or a state update holding it) and the runs queued behind.
type threadRuns struct {
	active *liveRun
	held   bool
	queue  []*liveRun
}

// liveRun is a run this server executes (or queued, or finished
// recently, kept for joins).
type liveRun struct {
	rec       RunRecord
	g         Graph
	in        RunInput
	modes     []string
	update    json.RawMessage // command.update, applied before the run
	temporary bool            // a stateless run's thread
	keep      bool            // keep the temporary thread (on_completion keep)
	webhook   string

	log    *eventLog
	pg     *pgLog // instead of log, for a run executed as a worker job
	ctx    context.Context
	cancel context.CancelFunc
	stored chan struct{} // closed once the creating request stored the record
	done   chan struct{} // closed when the run has finished

	// Set under Server.mu.
	action string // why it was cancelled: interrupt or rollback
	// Set before done is closed.
	result json.RawMessage
	status string
}

// appender is where a run's events go.
type appender interface {
	append(event string, data []byte)
}

func (run *liveRun) sink() appender {
	if run.pg != nil {
		return run.pg
	}
	return run.log
}

// enqueue registers run on its thread under the strategy and returns the
// runs to cancel before they started (the caller finishes them), and
// whether run is to start now. A busy thread under reject is
// errThreadBusy, and nothing is registered.
func (s *Server) enqueue(run *liveRun, strategy string) (cancelled []*liveRun, start bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, errors.New("server: closed")
	}
	tid := run.rec.ThreadID
	tr := s.threads[tid]
	if tr == nil {
		tr = &threadRuns{}
		s.threads[tid] = tr
	}
	if tr.active != nil || tr.held || len(tr.queue) > 0 {
		switch strategy {
		case strategyReject:
			return nil, false, fmt.Errorf("thread %q: %w: a run is in progress; wait for it or choose multitask_strategy enqueue, interrupt or rollback", tid, errThreadBusy)
		case strategyInterrupt, strategyRollback:
			cancelled, tr.queue = tr.queue, nil
			if tr.active != nil && tr.active.action == "" {
				tr.active.action = strategy
				tr.active.cancel()
			}
		}
	}
	tr.queue = append(tr.queue, run)
	s.runs[run.rec.RunID] = run
	return cancelled, s.nextLocked(tid) == run, nil
}

// nextLocked makes the first queued run of tid active when nothing holds
// the thread, and returns it (nil if none). It drops the thread's entry
// when it has nothing left. s.mu is held.
func (s *Server) nextLocked(tid string) *liveRun {
	tr := s.threads[tid]
	if tr == nil || tr.active != nil || tr.held || s.closed {
		return nil
	}
	if len(tr.queue) == 0 {
		delete(s.threads, tid)
		return nil
	}
	run := tr.queue[0]
	tr.queue = tr.queue[1:]
	tr.active = run
	s.wg.Add(1) // under s.mu, so never after Close's Wait began
	return run
}

// holdThread keeps runs off a thread while a state update writes to it.
func (s *Server) holdThread(tid string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.threads[tid]; busy {
		return nil, fmt.Errorf("thread %q: %w: a run is in progress", tid, errThreadBusy)
	}
	s.threads[tid] = &threadRuns{held: true}
	return func() {
		s.mu.Lock()
		s.threads[tid].held = false
		next := s.nextLocked(tid)
		s.mu.Unlock()
		if next != nil {
			s.launch(next)
		}
	}, nil
}

// launch starts the goroutine of a run nextLocked made active.
func (s *Server) launch(run *liveRun) {
	go s.execute(run)
}

// execute runs an active run to its end and starts the next queued one.
func (s *Server) execute(run *liveRun) {
	defer s.wg.Done()
	<-run.stored
	ctx := run.ctx
	_ = s.store.PutRun(context.WithoutCancel(ctx), s.setStatus(run, RunRunning))
	conv := newConverter(s, run)
	conv.emit("metadata", "", map[string]any{"run_id": run.rec.RunID, "thread_id": run.rec.ThreadID, "attempt": 1})

	runErr := s.runGraph(ctx, run, conv)
	s.mu.Lock()
	action := run.action
	s.mu.Unlock()
	status := RunSuccess
	switch {
	case action != "" && (runErr == nil || ctx.Err() != nil):
		status = RunInterrupted
		runErr = nil
	case runErr != nil:
		status = RunError
		conv.emit("error", "", errorJSON(runErr))
	case conv.interrupted:
		status = RunInterrupted
	}
	s.finish(run, status, action, runErr, conv.result(runErr))
}

// runGraph applies the run's command update, then runs its graph,
// converting its events.
func (s *Server) runGraph(ctx context.Context, run *liveRun, conv *converter) error {
	if !isNull(run.update) {
		if _, err := run.g.UpdateState(ctx, run.rec.ThreadID, "", run.update, ""); err != nil {
			return err
		}
	}
	if err := s.resolveResume(ctx, run); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // cancelled before it began: the caller knows why
	}
	conv.beginEvents()
	var runErr error
	for ev, err := range run.g.Run(ctx, run.in) {
		if err != nil {
			runErr = err
			break
		}
		conv.event(ctx, ev)
	}
	conv.flushLifecycle()
	if runErr != nil {
		return runErr
	}
	conv.endEvents()
	return nil
}

// resolveResume turns a command's resume value into Resume or ResumeByID:
// an object whose keys are all ids of pending interrupts answers them by
// id.
func (s *Server) resolveResume(ctx context.Context, run *liveRun) error {
	if !run.in.HasResume {
		return nil
	}
	m, ok := run.in.Resume.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	st, err := run.g.State(ctx, run.rec.ThreadID, "")
	if err != nil {
		return nil // the run reports it
	}
	for k := range m {
		if !slices.ContainsFunc(st.Interrupts, func(in graph.Interruption) bool { return in.ID == k }) {
			return nil
		}
	}
	run.in.HasResume, run.in.Resume, run.in.ResumeByID = false, nil, m
	return nil
}

// setStatus sets a run's status and returns a copy of its record; the
// record of a live run is read and written under s.mu (see record).
func (s *Server) setStatus(run *liveRun, status string) RunRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	run.rec.Status, run.rec.UpdatedAt = status, s.opts.now().UTC()
	return run.rec
}

// record returns a copy of a live run's record.
func (s *Server) record(run *liveRun) RunRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return run.rec
}

// errorJSON is LangGraph's error event: the error's kind and message.
func errorJSON(err error) map[string]any {
	kind := "Error"
	var ne *graph.NodeError
	var ie *InputError
	switch {
	case errors.As(err, &ie):
		kind = "ValidationError"
	case errors.Is(err, graph.ErrRecursionLimit):
		kind = "GraphRecursionError"
	case errors.Is(err, checkpoint.ErrBusy):
		kind = "BusyError"
	case errors.Is(err, graph.ErrNothingToResume), errors.Is(err, graph.ErrAmbiguousResume), errors.Is(err, graph.ErrInvalidAnswer):
		kind = "InvalidResumeError"
	case errors.As(err, &ne):
		kind = "NodeError"
	}
	return map[string]any{"error": kind, "message": err.Error()}
}

// finish records a run's end, updates its thread, wakes its waiters and
// starts the next queued run of the thread.
func (s *Server) finish(run *liveRun, status, action string, runErr error, result json.RawMessage) {
	ctx := context.WithoutCancel(run.ctx)
	tid := run.rec.ThreadID
	now := s.opts.now().UTC()
	if action == strategyRollback {
		if err := s.rollback(ctx, run); err != nil {
			status, runErr = RunError, err
		}
	}
	if status == RunError && runErr != nil {
		s.mu.Lock()
		run.rec.Error = runErr.Error()
		s.mu.Unlock()
	}
	rec := s.setStatus(run, status)
	if action == strategyRollback && runErr == nil {
		_ = s.store.DeleteRun(ctx, tid, rec.RunID)
	} else {
		_ = s.store.PutRun(ctx, rec)
	}
	if t, err := s.store.GetThread(ctx, tid); err == nil {
		t.UpdatedAt = now
		t.Status, t.Error = StatusIdle, ""
		switch {
		case status == RunError:
			t.Status, t.Error = StatusError, runErr.Error()
		case status == RunInterrupted && action == "":
			t.Status = StatusInterrupted
		}
		s.atRest(ctx, &t)
		_ = s.store.PutThread(ctx, t)
	}
	if run.temporary && !run.keep {
		_ = run.g.Saver().DeleteThread(ctx, tid)
		_ = s.store.DeleteThread(ctx, tid)
	}
	// Free the thread before the end event and the waiters, so that a
	// client's next request after its stream or wait ended finds it free.
	s.mu.Lock()
	if tr := s.threads[tid]; tr != nil && tr.active == run {
		tr.active = nil
	}
	next := s.nextLocked(tid)
	if action == strategyRollback && runErr == nil {
		delete(s.runs, run.rec.RunID) // gone, as its record
	} else {
		s.finished = append(s.finished, run.rec.RunID)
	}
	for len(s.finished) > s.opts.keepRuns {
		delete(s.runs, s.finished[0])
		s.finished = s.finished[1:]
	}
	s.mu.Unlock()

	endStatus := status
	if action == strategyRollback {
		endStatus = "rollback"
	}
	newConverter(s, run).emit("end", "", map[string]any{"run_id": run.rec.RunID, "status": endStatus})
	run.log.close()

	run.result, run.status = result, status
	close(run.done)
	run.cancel()
	if run.webhook != "" {
		s.postWebhook(run)
	}
	if next != nil {
		s.launch(next)
	}
}

// finishUnstarted ends a queued run that was cancelled before it started.
func (s *Server) finishUnstarted(run *liveRun, action string) {
	<-run.stored
	s.finish(run, RunInterrupted, action, nil, json.RawMessage("null"))
}

// rollback puts the thread back where it was before the run: a fork from
// the newest checkpoint another run wrote, or no checkpoint at all.
func (s *Server) rollback(ctx context.Context, run *liveRun) error {
	tid := run.rec.ThreadID
	sts, err := run.g.History(ctx, tid, HistoryQuery{})
	if err != nil {
		return fmt.Errorf("rollback of run %q on thread %q: %w", run.rec.RunID, tid, err)
	}
	for _, st := range sts {
		if st.Metadata.RunID != run.rec.RunID {
			if st.Config.CheckpointID == sts[0].Config.CheckpointID {
				return nil // the run wrote nothing
			}
			_, err := run.g.UpdateState(ctx, tid, st.Config.CheckpointID, nil, "")
			if err != nil {
				return fmt.Errorf("rollback of run %q on thread %q to checkpoint %q: %w", run.rec.RunID, tid, st.Config.CheckpointID, err)
			}
			return nil
		}
	}
	if err := run.g.Saver().DeleteThread(ctx, tid); err != nil {
		return fmt.Errorf("rollback of run %q on thread %q: %w", run.rec.RunID, tid, err)
	}
	return nil
}

// cancelLive cancels a run: a queued one is dropped, an active one is
// stopped (action interrupt keeps what it did; rollback undoes it).
func (s *Server) cancelLive(run *liveRun, action string) {
	s.mu.Lock()
	tr := s.threads[run.rec.ThreadID]
	queued := false
	if tr != nil {
		if i := slices.Index(tr.queue, run); i >= 0 {
			tr.queue = slices.Delete(tr.queue, i, i+1)
			queued = true
		}
	}
	if !queued && run.action == "" {
		run.action = action
	}
	s.mu.Unlock()
	if queued {
		s.finishUnstarted(run, action)
		return
	}
	run.cancel()
}

// cancelThreadRuns cancels every run of a thread, and waits for them.
func (s *Server) cancelThreadRuns(tid string, wait bool) {
	s.mu.Lock()
	var runs []*liveRun
	if tr := s.threads[tid]; tr != nil {
		if tr.active != nil {
			runs = append(runs, tr.active)
		}
		runs = append(runs, tr.queue...)
	}
	s.mu.Unlock()
	for _, r := range runs {
		s.cancelLive(r, strategyInterrupt)
	}
	if wait {
		for _, r := range runs {
			<-r.done
		}
	}
}

// liveRunOf returns a run this server holds, of thread tid.
func (s *Server) liveRunOf(tid, rid string) *liveRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	if run := s.runs[rid]; run != nil && run.rec.ThreadID == tid {
		return run
	}
	return nil
}
