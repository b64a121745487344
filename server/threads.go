package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
)

// graphOf returns the graph a thread runs, or nil before its first run
// (unless it was created with a graph_id).
func (s *Server) graphOf(t ThreadRecord) Graph {
	if a, ok := s.byID[t.GraphID]; ok {
		return a.g
	}
	return nil
}

// latest reads a thread's latest state; nil when it has no checkpoint.
func (s *Server) latest(ctx context.Context, t ThreadRecord) (*State, error) {
	g := s.graphOf(t)
	if g == nil {
		return nil, nil
	}
	st, err := g.State(ctx, t.ThreadID, "")
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil, nil
	}
	return st, err
}

// statusOf is a thread's status: busy while a run (of any replica, with
// WithWorkers) is live or queued on it, else the status its record keeps
// (see RestingStatus). Only a record left busy with no run live (a run
// whose end was not recorded yet) is computed from st, its latest state,
// which the caller reads for it (see needsState).
func (s *Server) statusOf(ctx context.Context, t ThreadRecord, st *State) string {
	if s.busy(ctx, t.ThreadID) {
		return StatusBusy
	}
	if t.Status == StatusBusy {
		return restingStatus(t, st)
	}
	switch t.Status {
	case StatusInterrupted, StatusError:
		return t.Status
	}
	return StatusIdle
}

// needsState reports whether the fields f of thread t are computed from
// its latest state.
func needsState(t ThreadRecord, f threadFields) bool {
	return f.has("values") || f.has("interrupts") || f.has("status") && t.Status == StatusBusy
}

// threadJSON is thread t as the API answers it, with every field.
func (s *Server) threadJSON(ctx context.Context, t ThreadRecord) (map[string]any, error) {
	return s.threadFieldsJSON(ctx, t, nil)
}

// threadFieldsJSON is thread t with the fields of f only (nil: all); it
// reads the thread's latest state only for a field computed from it (not
// for its status, which its record keeps).
func (s *Server) threadFieldsJSON(ctx context.Context, t ThreadRecord, f threadFields) (map[string]any, error) {
	var st *State
	if needsState(t, f) {
		var err error
		if st, err = s.latest(ctx, t); err != nil {
			return nil, err
		}
	}
	out := make(map[string]any, len(threadSelectable))
	set := func(name string, v func() any) {
		if f.has(name) {
			out[name] = v()
		}
	}
	set("thread_id", func() any { return t.ThreadID })
	set("created_at", func() any { return timeJSON(t.CreatedAt) })
	set("updated_at", func() any { return timeJSON(t.UpdatedAt) })
	set("state_updated_at", func() any { return timeJSON(t.UpdatedAt) })
	set("metadata", func() any {
		if t.Metadata == nil {
			return map[string]any{}
		}
		return t.Metadata
	})
	set("status", func() any { return s.statusOf(ctx, t, st) })
	set("values", func() any {
		if st == nil {
			return map[string]any{}
		}
		return st.Values
	})
	set("interrupts", func() any {
		interrupts := map[string]any{}
		if st != nil {
			for _, task := range st.Tasks {
				if len(task.Interrupts) > 0 {
					interrupts[task.ID] = interruptsJSON(task.Interrupts)
				}
			}
		}
		return interrupts
	})
	set("config", func() any { return map[string]any{"configurable": map[string]any{}} })
	set("error", func() any {
		if t.Error != "" {
			return t.Error
		}
		return nil
	})
	return out, nil
}

func (s *Server) writeThread(w http.ResponseWriter, r *http.Request, t ThreadRecord) {
	out, err := s.threadJSON(r.Context(), t)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, out)
}

type createThreadRequest struct {
	ThreadID   string          `json:"thread_id"`
	Metadata   map[string]any  `json:"metadata"`
	IfExists   string          `json:"if_exists"`
	GraphID    string          `json:"graph_id"`
	Supersteps []superstep     `json:"supersteps"`
	TTL        json.RawMessage `json:"ttl"`
}

func (s *Server) createThread(w http.ResponseWriter, r *http.Request) {
	var req createThreadRequest
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	if len(req.Supersteps) > 0 && req.GraphID == "" {
		fail(w, &InputError{Field: "supersteps", Err: errors.New("a thread created with supersteps needs a graph_id")})
		return
	}
	if req.IfExists != "" && req.IfExists != "raise" && req.IfExists != "do_nothing" {
		fail(w, &InputError{Field: "if_exists", Err: fmt.Errorf("%q is neither raise nor do_nothing", req.IfExists)})
		return
	}
	ttl, err := parseTTL(req.TTL)
	if err != nil {
		fail(w, err)
		return
	}
	if _, ok := s.store.(TTLStore); ttl != nil && !ok {
		fail(w, &InputError{Field: "ttl", Err: fmt.Errorf("the server's store (%T) keeps no thread TTLs", s.store)})
		return
	}
	if req.ThreadID == "" {
		req.ThreadID = uuid.NewString()
	}
	now := s.opts.now().UTC()
	t := ThreadRecord{ThreadID: req.ThreadID, Metadata: own(r.Context(), req.Metadata), Status: StatusIdle, CreatedAt: now, UpdatedAt: now}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	if req.GraphID != "" {
		a, err := s.assistant(req.GraphID)
		if err != nil {
			fail(w, err)
			return
		}
		t.GraphID = a.GraphID
		t.Metadata["graph_id"] = a.GraphID
	}
	err = s.store.CreateThread(r.Context(), t)
	if err == nil {
		err = s.setTTL(r.Context(), t.ThreadID, ttl)
	}
	if err == nil && len(req.Supersteps) > 0 {
		// The thread's first checkpoints (LangGraph's supersteps, a copy of
		// a thread): all or none, and no thread when none.
		if _, err = applySupersteps(r.Context(), s.graphOf(t), t.ThreadID, req.Supersteps); err != nil {
			err = errors.Join(fmt.Errorf("thread %q: supersteps: %w", t.ThreadID, err), s.store.DeleteThread(r.Context(), t.ThreadID))
		} else if s.atRest(r.Context(), &t); t.Status != StatusIdle {
			err = s.store.PutThread(r.Context(), t)
		}
	}
	if errors.Is(err, ErrExists) && req.IfExists == "do_nothing" {
		t, err = s.threadFor(r.Context(), req.ThreadID)
		if errors.Is(err, ErrNotFound) {
			err = fmt.Errorf("thread %q: %w", req.ThreadID, ErrExists)
		}
	}
	if err != nil {
		fail(w, err)
		return
	}
	s.writeThread(w, r, t)
}

func (s *Server) thread(r *http.Request) (ThreadRecord, error) {
	return s.threadFor(r.Context(), r.PathValue("tid"))
}

func (s *Server) getThread(w http.ResponseWriter, r *http.Request) {
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	out, err := s.threadJSON(r.Context(), t)
	if err != nil {
		fail(w, err)
		return
	}
	size, err := s.storageOf(r.Context(), t)
	if err != nil {
		fail(w, err)
		return
	}
	if size != nil {
		out[storageField] = size
	}
	writeJSON(w, 200, out)
}

func (s *Server) patchThread(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Metadata map[string]any  `json:"metadata"`
		TTL      json.RawMessage `json:"ttl"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	ttl, err := parseTTL(req.TTL)
	if err != nil {
		fail(w, err)
		return
	}
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	owner, owned := t.Metadata[OwnerKey]
	maps.Copy(t.Metadata, req.Metadata)
	if _, authed := userOf(r.Context()); authed && owned {
		t.Metadata[OwnerKey] = owner // a thread stays its creator's
	}
	t.UpdatedAt = s.opts.now().UTC()
	if err := s.setTTL(r.Context(), t.ThreadID, ttl); err != nil {
		fail(w, err)
		return
	}
	if err := s.store.PutThread(r.Context(), t); err != nil {
		fail(w, err)
		return
	}
	s.writeThread(w, r, t)
}

func (s *Server) deleteThread(w http.ResponseWriter, r *http.Request) {
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	if err := s.removeThread(r.Context(), t); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// removeThread cancels a thread's runs (in every process, with
// WithWorkers) and deletes its
// checkpoints and records.
func (s *Server) removeThread(ctx context.Context, t ThreadRecord) error {
	if s.cl != nil {
		if err := s.cancelClusterThread(ctx, t.ThreadID); err != nil {
			return err
		}
	}
	s.cancelThreadRuns(t.ThreadID, true)
	if g := s.graphOf(t); g != nil {
		if err := g.Saver().DeleteThread(ctx, t.ThreadID); err != nil {
			return err
		}
	}
	return s.store.DeleteThread(ctx, t.ThreadID)
}

func (s *Server) copyThread(w http.ResponseWriter, r *http.Request) {
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	now := s.opts.now().UTC()
	cp := ThreadRecord{ThreadID: uuid.NewString(), GraphID: t.GraphID, Metadata: maps.Clone(t.Metadata), Status: t.Status, Error: t.Error, CreatedAt: now, UpdatedAt: now}
	if g := s.graphOf(t); g != nil {
		c, ok := g.Saver().(checkpoint.Copier)
		if !ok {
			writeError(w, http.StatusNotImplemented, fmt.Sprintf("the checkpointer of graph %q cannot copy threads", t.GraphID))
			return
		}
		if err := c.CopyThread(r.Context(), t.ThreadID, cp.ThreadID); err != nil && !errors.Is(err, checkpoint.ErrNotFound) {
			fail(w, err)
			return
		}
	}
	if cp.Status == StatusBusy {
		cp.Status = StatusIdle
	}
	s.atRest(r.Context(), &cp)
	if err := s.store.CreateThread(r.Context(), cp); err != nil {
		fail(w, err)
		return
	}
	s.writeThread(w, r, cp)
}

type searchThreadsRequest struct {
	Metadata  map[string]any `json:"metadata"`
	Values    map[string]any `json:"values"`
	IDs       []string       `json:"ids"`
	Status    string         `json:"status"`
	Limit     int            `json:"limit"`
	Offset    int            `json:"offset"`
	SortBy    string         `json:"sort_by"`
	SortOrder string         `json:"sort_order"`
	Select    []string       `json:"select"`
}

func (s *Server) matchThreads(r *http.Request, paged bool) ([]ThreadRecord, []map[string]any, error) {
	var req searchThreadsRequest
	if err := readJSON(r, &req); err != nil {
		return nil, nil, err
	}
	switch req.Status {
	case "", StatusIdle, StatusBusy, StatusInterrupted, StatusError:
	default:
		return nil, nil, &InputError{Field: "status", Err: fmt.Errorf("%q is not idle, busy, interrupted or error", req.Status)}
	}
	sel, err := parseSelect(req.Select)
	if err != nil {
		return nil, nil, err
	}
	// What the filters read beside what the answer shows (a count shows
	// nothing).
	need := threadFields{}
	if !paged {
		sel = need
	}
	if req.Status != "" {
		need["status"] = true
	}
	if len(req.Values) > 0 {
		need["values"] = true
	}
	if sel != nil {
		maps.Copy(need, sel)
	} else {
		need = nil
	}
	// Status is computed, so select on it after computing.
	q := ThreadQuery{Metadata: ownedBy(r.Context(), req.Metadata), IDs: req.IDs, SortBy: req.SortBy, SortOrder: req.SortOrder}
	all, err := s.store.SearchThreads(r.Context(), q)
	if err != nil {
		return nil, nil, err
	}
	var recs []ThreadRecord
	var outs []map[string]any
	for _, t := range all {
		out, err := s.threadFieldsJSON(r.Context(), t, need)
		if err != nil {
			return nil, nil, err
		}
		if req.Status != "" && out["status"] != req.Status {
			continue
		}
		if len(req.Values) > 0 && !matchValues(out["values"], req.Values) {
			continue
		}
		for name := range out {
			if !sel.has(name) {
				delete(out, name)
			}
		}
		recs, outs = append(recs, t), append(outs, out)
	}
	if paged {
		if req.Limit <= 0 {
			req.Limit = 10
		}
		recs, outs = page(recs, req.Limit, req.Offset), page(outs, req.Limit, req.Offset)
	}
	return recs, outs, nil
}

// matchValues reports whether a state's JSON values hold every key of
// filter with an equal value.
func matchValues(values any, filter map[string]any) bool {
	m, ok := jsonRound(values).(map[string]any)
	if !ok {
		return false
	}
	for k, v := range filter {
		if !reflect.DeepEqual(m[k], jsonRound(v)) {
			return false
		}
	}
	return true
}

func (s *Server) searchThreads(w http.ResponseWriter, r *http.Request) {
	_, outs, err := s.matchThreads(r, true)
	if err != nil {
		fail(w, err)
		return
	}
	if outs == nil {
		outs = []map[string]any{}
	}
	writeJSON(w, 200, outs)
}

func (s *Server) countThreads(w http.ResponseWriter, r *http.Request) {
	recs, _, err := s.matchThreads(r, false)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, len(recs))
}
