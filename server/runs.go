package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/procid"
)

type runMode int

const (
	modeBackground runMode = iota
	modeStream
	modeWait
)

func runJSON(r RunRecord) map[string]any {
	md := r.Metadata
	if md == nil {
		md = map[string]any{}
	}
	return map[string]any{
		"run_id": r.RunID, "thread_id": r.ThreadID, "assistant_id": r.AssistantID,
		"created_at": timeJSON(r.CreatedAt), "updated_at": timeJSON(r.UpdatedAt),
		"status": r.Status, "metadata": md, "multitask_strategy": r.MultitaskStrategy,
		"kwargs": r.Kwargs,
	}
}

// newRun validates a run request and builds its run, creating the
// thread of a stateless run or, with if_not_exists create, a missing one.
// Nothing is stored for a request it refuses.
func (s *Server) newRun(ctx context.Context, tid string, body json.RawMessage) (*liveRun, *ThreadRecord, error) {
	var req runRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, nil, &InputError{Err: fmt.Errorf("malformed JSON body: %w", err)}
	}
	if err := req.validate(); err != nil {
		return nil, nil, err
	}
	if err := s.checkWebhook(req.Webhook); err != nil {
		return nil, nil, err
	}
	if req.AssistantID == "" {
		return nil, nil, &InputError{Field: "assistant_id", Err: errors.New("required")}
	}
	a, err := s.lookupAssistant(ctx, req.AssistantID)
	if err != nil {
		return nil, nil, err
	}
	modes, err := parseModes(req.StreamMode)
	if err != nil {
		return nil, nil, err
	}
	nodes := a.g.Drawing().Nodes
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		names = append(names, n.ID)
	}
	before, err := parseNodes("interrupt_before", req.InterruptBefore, names)
	if err != nil {
		return nil, nil, err
	}
	after, err := parseNodes("interrupt_after", req.InterruptAfter, names)
	if err != nil {
		return nil, nil, err
	}
	if err := a.g.CheckInput(req.Input); err != nil {
		return nil, nil, err
	}
	in := RunInput{Input: req.Input, Modes: graphModes(modes), Subgraphs: req.StreamSubgraphs,
		InterruptBefore: before, InterruptAfter: after, CheckpointID: req.CheckpointID, Metadata: req.Metadata, Durability: req.Durability,
		Lifecycle: contains(modes, "lifecycle")}
	if err := mergeRunConfig(&in, a, req.Config, req.Context); err != nil {
		return nil, nil, err
	}
	var update json.RawMessage
	if req.Command != nil {
		if !isNull(req.Command.Update) {
			if req.Command.Update, err = updateObject(req.Command.Update); err != nil {
				return nil, nil, err
			}
			if err := a.g.CheckInput(req.Command.Update); err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					ie.Field = "command.update." + ie.Field
				}
				return nil, nil, err
			}
			update = req.Command.Update
		}
		if in.Goto, in.Sends, err = parseGoto(req.Command.Goto, names); err != nil {
			return nil, nil, err
		}
		for i, send := range in.Sends {
			if err := a.g.CheckInput(send.Input); err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					ie.Field = fmt.Sprintf("command.goto[%d].input.%s", i, ie.Field)
				}
				return nil, nil, err
			}
		}
		if len(in.Goto) > 0 || len(in.Sends) > 0 {
			// Command(update=…, goto=…): one input, its writes applied
			// with its gotos, as the node-less task of the resumed step.
			in.Input, update = update, nil
		}
		if len(req.Command.Resume) > 0 {
			in.HasResume = true
			if err := json.Unmarshal(req.Command.Resume, &in.Resume); err != nil {
				return nil, nil, &InputError{Field: "command.resume", Err: err}
			}
		}
	}

	now := s.opts.now().UTC()
	var t ThreadRecord
	temporary := tid == ""
	if temporary {
		t = ThreadRecord{ThreadID: uuid.NewString(), Metadata: own(ctx, map[string]any{}), Status: StatusIdle, CreatedAt: now, UpdatedAt: now}
	} else if t, err = s.threadFor(ctx, tid); errors.Is(err, ErrNotFound) && req.IfNotExists == "create" {
		t = ThreadRecord{ThreadID: tid, Metadata: own(ctx, map[string]any{}), Status: StatusIdle, CreatedAt: now, UpdatedAt: now}
		temporary = false
		err = s.store.CreateThread(ctx, t)
		if errors.Is(err, ErrExists) {
			t, err = s.threadFor(ctx, tid)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if t.GraphID != "" && t.GraphID != a.GraphID {
		return nil, nil, &InputError{Field: "assistant_id", Err: fmt.Errorf("thread %q runs graph %q, not %q", t.ThreadID, t.GraphID, a.GraphID)}
	}
	if in.HasResume && !s.resumable(ctx, t, a.g) {
		return nil, nil, &InputError{Field: "command.resume", Err: fmt.Errorf("thread %q has no pending interrupt to resume", t.ThreadID)}
	}
	runID := checkpoint.NewID()
	in.Thread, in.RunID = t.ThreadID, runID
	kwargs, _ := json.Marshal(map[string]any{"input": req.Input, "command": req.Command, "config": req.Config,
		"stream_mode": modes, "interrupt_before": before, "interrupt_after": after})
	rctx, cancel := context.WithCancel(s.ctx)
	run := &liveRun{
		rec: RunRecord{RunID: runID, ThreadID: t.ThreadID, AssistantID: a.ID, Status: RunPending, Metadata: req.Metadata,
			MultitaskStrategy: req.MultitaskStrategy, Kwargs: kwargs, CreatedAt: now, UpdatedAt: now},
		g: a.g, in: in, modes: modes, update: update, temporary: temporary, keep: req.OnCompletion == "keep",
		webhook: req.Webhook, log: newEventLog(s.opts.logLimit), ctx: rctx, cancel: cancel,
		stored: make(chan struct{}), done: make(chan struct{}),
	}
	t.GraphID = a.GraphID
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.Metadata["graph_id"], t.Metadata["assistant_id"] = a.GraphID, a.ID
	return run, &t, nil
}

// resumable reports whether a resume command can be taken for thread t:
// it has pending interrupts, or a run in progress that may stop at one.
func (s *Server) resumable(ctx context.Context, t ThreadRecord, g Graph) bool {
	if s.busy(ctx, t.ThreadID) {
		return true
	}
	if t.GraphID == "" {
		return false
	}
	st, err := g.State(ctx, t.ThreadID, "")
	return err == nil && (len(st.Interrupts) > 0 || stoppedAtBreakpoint(st) || t.Status == StatusInterrupted && len(st.Next) > 0)
}

// graphModes is the runtime's modes for the API's: always values and
// interrupts (the result needs them), tasks for messages' completion.
func graphModes(modes []string) Mode {
	m := Mode(modeValues | modeInterrupts)
	for _, name := range modes {
		switch name {
		case "updates":
			m |= modeUpdates
		case "messages", "messages-tuple":
			m |= modeMessages | modeTasks
		case "custom":
			m |= modeCustom
		case "tasks":
			m |= modeTasks
		case "debug":
			m |= modeTasks | modeCheckpoints
		case "checkpoints":
			m |= modeCheckpoints
		case "events":
			m |= modeTasks | modeMessages | modeCustom
		case "tools":
			m |= modeCustom
		case "lifecycle":
			m |= modeTasks
		}
	}
	return m
}

// startRun creates a run from a run request body on thread tid ("" for a
// stateless run) and starts or queues it. It returns the run and a copy of
// its record as created.
func (s *Server) startRun(ctx context.Context, tid string, body json.RawMessage) (*liveRun, RunRecord, error) {
	run, t, err := s.newRun(ctx, tid, body)
	if err != nil {
		return nil, RunRecord{}, err
	}
	run.rec.Owner = procid.Self()
	strategy := run.rec.MultitaskStrategy
	cancelled, start, err := s.enqueue(run, strategy)
	if err != nil {
		run.cancel()
		return nil, RunRecord{}, err
	}
	ctx = context.WithoutCancel(ctx)
	t.Status = StatusBusy
	t.UpdatedAt = run.rec.CreatedAt
	err = s.store.PutThread(ctx, *t)
	rec := run.rec // the run's goroutine writes it once stored is closed
	if err == nil {
		err = s.store.PutRun(ctx, rec)
	}
	close(run.stored)
	for _, c := range cancelled {
		s.finishUnstarted(c, strategy)
	}
	if start {
		s.launch(run)
	}
	if err != nil {
		s.cancelLive(run, strategyInterrupt)
		return nil, RunRecord{}, err
	}
	return run, rec, nil
}

func (s *Server) createRun(mode runMode) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body json.RawMessage
		if err := readJSON(r, &body); err != nil {
			fail(w, err)
			return
		}
		if isNull(body) {
			body = json.RawMessage("{}")
		}
		if s.cl != nil {
			s.createClusterRun(w, r, mode, body)
			return
		}
		run, rec, err := s.startRun(r.Context(), r.PathValue("tid"), body)
		if err != nil {
			fail(w, err)
			return
		}
		loc := runLocation(rec)
		w.Header().Set("Content-Location", loc)
		switch mode {
		case modeBackground:
			writeJSON(w, 200, runJSON(rec))
		case modeWait:
			s.wait(w, r, run, run.onDisconnectCancel(body))
		case modeStream:
			w.Header().Set("Location", loc+"/stream")
			s.stream(w, r, run, 0, run.onDisconnectCancel(body))
		}
	}
}

func (run *liveRun) onDisconnectCancel(body json.RawMessage) bool {
	var req struct {
		OnDisconnect string `json:"on_disconnect"`
	}
	_ = json.Unmarshal(body, &req)
	return req.OnDisconnect == "cancel"
}

// wait writes the run's result once it finished. A client that leaves
// first cancels the run only with on_disconnect cancel.
func (s *Server) wait(w http.ResponseWriter, r *http.Request, run *liveRun, cancelOnDisconnect bool) {
	select {
	case <-run.done:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write(run.result)
	case <-r.Context().Done():
		if cancelOnDisconnect {
			s.cancelLive(run, strategyInterrupt)
		}
	}
}

func (s *Server) runOf(w http.ResponseWriter, r *http.Request) (*liveRun, RunRecord, bool) {
	tid, rid := r.PathValue("tid"), r.PathValue("rid")
	if _, err := s.threadFor(r.Context(), tid); err != nil {
		fail(w, err)
		return nil, RunRecord{}, false
	}
	rec, err := s.store.GetRun(r.Context(), tid, rid)
	run := s.liveRunOf(tid, rid)
	if err != nil && run == nil {
		fail(w, err)
		return nil, rec, false
	}
	if err != nil {
		rec = s.record(run)
	}
	return run, s.overlay(r.Context(), s.settle(r.Context(), rec)), true
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if _, rec, ok := s.runOf(w, r); ok {
		writeJSON(w, 200, runJSON(rec))
	}
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	limit, offset := 10, 0
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil {
			fail(w, &InputError{Field: "limit", Err: err})
			return
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil {
			fail(w, &InputError{Field: "offset", Err: err})
			return
		}
	}
	status := q.Get("status")
	if s.cl != nil && status != "" {
		// A worker run's status is the worker's (overlay): filter after.
		runs, err := s.store.ListRuns(r.Context(), t.ThreadID, "", 0, 0)
		if err != nil {
			fail(w, err)
			return
		}
		out := []map[string]any{}
		for _, rec := range runs {
			if rec = s.overlay(r.Context(), rec); rec.Status == status {
				out = append(out, runJSON(rec))
			}
		}
		if out = page(out, limit, offset); out == nil {
			out = []map[string]any{}
		}
		writeJSON(w, 200, out)
		return
	}
	runs, err := s.store.ListRuns(r.Context(), t.ThreadID, status, limit, offset)
	if err != nil {
		fail(w, err)
		return
	}
	out := []map[string]any{}
	for _, rec := range runs {
		out = append(out, runJSON(s.overlay(r.Context(), s.settle(r.Context(), rec))))
	}
	writeJSON(w, 200, out)
}

func (s *Server) deleteRun(w http.ResponseWriter, r *http.Request) {
	run, rec, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if (run != nil && !isClosed(run.done)) || (s.cl != nil && (rec.Status == RunPending || rec.Status == RunRunning)) {
		writeError(w, http.StatusConflict, fmt.Sprintf("run %q of thread %q is %s: cancel it first", rec.RunID, rec.ThreadID, rec.Status))
		return
	}
	if err := s.store.DeleteRun(r.Context(), rec.ThreadID, rec.RunID); err != nil {
		fail(w, err)
		return
	}
	s.mu.Lock()
	delete(s.runs, rec.RunID)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	run, rec, ok := s.runOf(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	action := q.Get("action")
	switch action {
	case "":
		action = strategyInterrupt
	case strategyInterrupt, strategyRollback:
	default:
		fail(w, &InputError{Field: "action", Err: fmt.Errorf("%q is not interrupt or rollback", action)})
		return
	}
	if s.cl != nil {
		s.clusterCancel(w, r, rec, action, q.Get("wait") == "1" || q.Get("wait") == "true")
		return
	}
	if run == nil || isClosed(run.done) {
		writeError(w, http.StatusConflict, fmt.Sprintf("run %q of thread %q is %s, not pending or running", rec.RunID, rec.ThreadID, rec.Status))
		return
	}
	s.cancelLive(run, action)
	if q.Get("wait") == "1" || q.Get("wait") == "true" {
		select {
		case <-run.done:
		case <-r.Context().Done():
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) joinRun(w http.ResponseWriter, r *http.Request) {
	run, rec, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if run != nil {
		s.wait(w, r, run, r.URL.Query().Get("cancel_on_disconnect") == "1")
		return
	}
	if s.cl != nil {
		s.clusterWait(w, r, rec, r.URL.Query().Get("cancel_on_disconnect") == "1")
		return
	}
	if rec.Status == RunError {
		// Failed (or lost with its process): the error, as a wait
		// on the run answered it.
		msg := rec.Error
		if msg == "" {
			msg = fmt.Sprintf("run %q of thread %q failed", rec.RunID, rec.ThreadID)
		}
		writeJSON(w, 200, map[string]any{"__error__": map[string]any{"error": "Error", "message": msg}})
		return
	}
	// Finished long ago: its thread's values are its result.
	t, err := s.threadFor(r.Context(), rec.ThreadID)
	if err != nil {
		fail(w, err)
		return
	}
	st, err := s.latest(r.Context(), t)
	if err != nil {
		fail(w, err)
		return
	}
	if st == nil {
		writeJSON(w, 200, map[string]any{})
		return
	}
	writeJSON(w, 200, st.Values)
}

func (s *Server) joinRunStream(w http.ResponseWriter, r *http.Request) {
	run, rec, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if s.cl != nil {
		s.clusterStream(w, r, rec, parseEventID(r.Header.Get("Last-Event-ID")), r.URL.Query().Get("cancel_on_disconnect") == "1")
		return
	}
	if run == nil {
		// Finished and its events forgotten: an empty stream.
		writeSSEHeaders(w)
		return
	}
	from := parseEventID(r.Header.Get("Last-Event-ID"))
	s.stream(w, r, run, from, r.URL.Query().Get("cancel_on_disconnect") == "1")
}
