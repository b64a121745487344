package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// assistant is an assistant as runs use it: a registered graph's own
// (system), or the latest version of one made through the API.
type assistant struct {
	ID          string
	GraphID     string
	Name        string
	Description *string
	Config      RunConfigJSON
	Context     map[string]any
	Metadata    map[string]any
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	g           Graph
}

func (a *assistant) json() map[string]any {
	md := a.Metadata
	if md == nil {
		md = map[string]any{}
	}
	cfg := a.Config
	if cfg.Configurable == nil {
		cfg.Configurable = map[string]any{}
	}
	cx := a.Context
	if cx == nil {
		cx = map[string]any{}
	}
	return map[string]any{
		"assistant_id": a.ID,
		"graph_id":     a.GraphID,
		"name":         a.Name,
		"description":  a.Description,
		"config":       cfg,
		"context":      cx,
		"metadata":     md,
		"version":      a.Version,
		"created_at":   timeJSON(a.CreatedAt),
		"updated_at":   timeJSON(a.UpdatedAt),
	}
}

// record is the stored form of a.
func (a *assistant) record() AssistantRecord {
	return AssistantRecord{AssistantID: a.ID, GraphID: a.GraphID, Name: a.Name, Description: a.Description, Config: a.Config,
		Context: a.Context, Metadata: a.Metadata, Version: a.Version, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// fromRecord is the assistant of a stored version, over its graph.
func (s *Server) fromRecord(rec AssistantRecord) (*assistant, error) {
	sys, ok := s.byID[rec.GraphID]
	if !ok {
		return nil, fmt.Errorf("assistant %q: its graph %q is not served by this server: %w", rec.AssistantID, rec.GraphID, ErrNotFound)
	}
	return &assistant{ID: rec.AssistantID, GraphID: rec.GraphID, Name: rec.Name, Description: rec.Description, Config: rec.Config,
		Context: rec.Context, Metadata: rec.Metadata, Version: rec.Version, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, g: sys.g}, nil
}

// assistant finds a registered graph's assistant by its id or its graph's
// id.
func (s *Server) assistant(id string) (*assistant, error) {
	a, ok := s.byID[id]
	if !ok {
		return nil, fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return a, nil
}

// lookupAssistant finds any assistant: a registered graph's, or the
// latest version of one made through the API.
func (s *Server) lookupAssistant(ctx context.Context, id string) (*assistant, error) {
	if a, ok := s.byID[id]; ok {
		return a, nil
	}
	vs, err := s.assistantStore().AssistantVersions(ctx, id)
	if err != nil {
		return nil, err
	}
	all, err := s.assistantStore().Assistants(ctx)
	if err != nil {
		return nil, err
	}
	for _, rec := range all {
		if rec.AssistantID == id {
			return s.fromRecord(rec)
		}
	}
	return s.fromRecord(vs[0])
}

// assistantStore is where assistants made through the API are kept: the
// Store, when it keeps them (AssistantStore), else the server's memory.
func (s *Server) assistantStore() AssistantStore {
	if as, ok := s.store.(AssistantStore); ok {
		return as
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memAssistants == nil {
		s.memAssistants = &lockedAssistants{}
	}
	return s.memAssistants
}

// lockedAssistants is an AssistantStore in memory, for a Store that keeps
// no assistants.
type lockedAssistants struct {
	mu sync.Mutex
	m  memoryAssistants
}

func (l *lockedAssistants) PutAssistant(_ context.Context, a AssistantRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.put(a)
}

func (l *lockedAssistants) Assistants(context.Context) ([]AssistantRecord, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.all(), nil
}

func (l *lockedAssistants) AssistantVersions(_ context.Context, id string) ([]AssistantRecord, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.list(id)
}

func (l *lockedAssistants) SetLatestAssistant(_ context.Context, id string, version int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.setLatest(id, version)
}

func (l *lockedAssistants) DeleteAssistant(_ context.Context, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.del(id)
}

func (s *Server) getAssistant(w http.ResponseWriter, r *http.Request) {
	a, err := s.lookupAssistant(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, a.json())
}

// assistantBody is the body of POST /assistants and PATCH
// /assistants/{id}.
type assistantBody struct {
	AssistantID string          `json:"assistant_id"`
	GraphID     string          `json:"graph_id"`
	Config      *RunConfigJSON  `json:"config"`
	Context     *map[string]any `json:"context"`
	Metadata    map[string]any  `json:"metadata"`
	IfExists    string          `json:"if_exists"`
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
}

func (s *Server) createAssistant(w http.ResponseWriter, r *http.Request) {
	var b assistantBody
	if err := readJSON(r, &b); err != nil {
		fail(w, err)
		return
	}
	switch b.IfExists {
	case "":
		b.IfExists = "raise"
	case "raise", "do_nothing":
	default:
		fail(w, &InputError{Field: "if_exists", Err: fmt.Errorf("%q is not raise or do_nothing", b.IfExists)})
		return
	}
	sys, ok := s.byID[b.GraphID]
	if !ok || sys.GraphID != b.GraphID {
		fail(w, &InputError{Field: "graph_id", Err: fmt.Errorf("no graph %q (graphs: %v)", b.GraphID, s.graphIDs())})
		return
	}
	if b.AssistantID == "" {
		b.AssistantID = uuid.NewString()
	} else if _, err := uuid.Parse(b.AssistantID); err != nil {
		fail(w, &InputError{Field: "assistant_id", Err: errors.New("want a UUID")})
		return
	}
	ctx := r.Context()
	existing, err := s.lookupAssistant(ctx, b.AssistantID)
	switch {
	case err == nil && b.IfExists == "do_nothing":
		writeJSON(w, 200, existing.json())
		return
	case err == nil:
		fail(w, fmt.Errorf("assistant %q: %w", b.AssistantID, ErrExists))
		return
	case !errors.Is(err, ErrNotFound):
		fail(w, err)
		return
	}
	now := s.opts.now().UTC()
	a := &assistant{ID: b.AssistantID, GraphID: b.GraphID, Name: "Untitled", Description: b.Description, Metadata: b.Metadata,
		Version: 1, CreatedAt: now, UpdatedAt: now, g: sys.g}
	if b.Name != nil {
		a.Name = *b.Name
	}
	if b.Config != nil {
		a.Config = *b.Config
	}
	if b.Context != nil {
		a.Context = *b.Context
	}
	if err := s.assistantStore().PutAssistant(ctx, a.record()); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, a.json())
}

func (s *Server) graphIDs() []string {
	out := make([]string, 0, len(s.assistants))
	for _, a := range s.assistants {
		out = append(out, a.GraphID)
	}
	return out
}

// stored returns an assistant made through the API for a request that
// changes it: a registered graph's own cannot be changed (409).
func (s *Server) stored(ctx context.Context, id string) ([]AssistantRecord, error) {
	if a, ok := s.byID[id]; ok {
		return nil, fmt.Errorf("assistant %q is graph %q's own, which cannot be changed or deleted: create an assistant of the graph instead: %w", id, a.GraphID, ErrExists)
	}
	return s.assistantStore().AssistantVersions(ctx, id)
}

func (s *Server) patchAssistant(w http.ResponseWriter, r *http.Request) {
	var b assistantBody
	if err := readJSON(r, &b); err != nil {
		fail(w, err)
		return
	}
	ctx := r.Context()
	id := r.PathValue("id")
	vs, err := s.stored(ctx, id)
	if err != nil {
		fail(w, err)
		return
	}
	cur, err := s.lookupAssistant(ctx, id)
	if err != nil {
		fail(w, err)
		return
	}
	next := *cur
	next.Version = vs[0].Version + 1 // versions only grow, whichever is the latest
	next.UpdatedAt = s.opts.now().UTC()
	if b.GraphID != "" {
		sys, ok := s.byID[b.GraphID]
		if !ok || sys.GraphID != b.GraphID {
			fail(w, &InputError{Field: "graph_id", Err: fmt.Errorf("no graph %q (graphs: %v)", b.GraphID, s.graphIDs())})
			return
		}
		next.GraphID, next.g = b.GraphID, sys.g
	}
	if b.Config != nil {
		next.Config = *b.Config
	}
	if b.Context != nil {
		next.Context = *b.Context
	}
	if b.Metadata != nil {
		next.Metadata = maps.Clone(cur.Metadata)
		if next.Metadata == nil {
			next.Metadata = map[string]any{}
		}
		maps.Copy(next.Metadata, b.Metadata)
	}
	if b.Name != nil {
		next.Name = *b.Name
	}
	if b.Description != nil {
		next.Description = b.Description
	}
	if err := s.assistantStore().PutAssistant(ctx, next.record()); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, next.json())
}

func (s *Server) deleteAssistant(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	deleteThreads := false
	if v := r.URL.Query().Get("delete_threads"); v != "" {
		var err error
		if deleteThreads, err = strconv.ParseBool(v); err != nil {
			fail(w, &InputError{Field: "delete_threads", Err: err})
			return
		}
	}
	if _, err := s.stored(ctx, id); err != nil {
		fail(w, err)
		return
	}
	if deleteThreads {
		ts, err := s.store.SearchThreads(ctx, ThreadQuery{Metadata: map[string]any{"assistant_id": id}})
		if err != nil {
			fail(w, err)
			return
		}
		for _, t := range ts {
			if err := s.removeThread(ctx, t); err != nil {
				fail(w, err)
				return
			}
		}
	}
	if err := s.assistantStore().DeleteAssistant(ctx, id); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type assistantQuery struct {
	GraphID   string         `json:"graph_id"`
	Name      string         `json:"name"`
	Metadata  map[string]any `json:"metadata"`
	Limit     int            `json:"limit"`
	Offset    int            `json:"offset"`
	SortBy    string         `json:"sort_by"`
	SortOrder string         `json:"sort_order"`
}

// matchAssistants returns the assistants a search or count selects: the
// registered graphs' first, in their order, then those made through the
// API, newest first (or as sort_by and sort_order say).
func (s *Server) matchAssistants(r *http.Request) ([]*assistant, assistantQuery, error) {
	var q assistantQuery
	if err := readJSON(r, &q); err != nil {
		return nil, q, err
	}
	all := append([]*assistant(nil), s.assistants...)
	recs, err := s.assistantStore().Assistants(r.Context())
	if err != nil {
		return nil, q, err
	}
	sort.Slice(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.After(recs[j].CreatedAt)
		}
		return recs[i].AssistantID < recs[j].AssistantID
	})
	for _, rec := range recs {
		if a, err := s.fromRecord(rec); err == nil {
			all = append(all, a)
		}
	}
	var out []*assistant
	for _, a := range all {
		if (q.GraphID != "" && a.GraphID != q.GraphID) || (q.Name != "" && a.Name != q.Name) || !matchMetadata(a.Metadata, q.Metadata) {
			continue
		}
		out = append(out, a)
	}
	if err := sortAssistants(out, q.SortBy, q.SortOrder); err != nil {
		return nil, q, err
	}
	return out, q, nil
}

// sortAssistants sorts as sort_by and sort_order ask (none: unchanged).
func sortAssistants(as []*assistant, by, order string) error {
	var less func(a, b *assistant) bool
	switch by {
	case "":
		return nil
	case "assistant_id":
		less = func(a, b *assistant) bool { return a.ID < b.ID }
	case "graph_id":
		less = func(a, b *assistant) bool { return a.GraphID < b.GraphID }
	case "name":
		less = func(a, b *assistant) bool { return a.Name < b.Name }
	case "created_at":
		less = func(a, b *assistant) bool { return a.CreatedAt.Before(b.CreatedAt) }
	case "updated_at":
		less = func(a, b *assistant) bool { return a.UpdatedAt.Before(b.UpdatedAt) }
	default:
		return &InputError{Field: "sort_by", Err: fmt.Errorf("%q is not assistant_id, graph_id, name, created_at or updated_at", by)}
	}
	desc := order != "asc"
	sort.SliceStable(as, func(i, j int) bool {
		if desc {
			return less(as[j], as[i])
		}
		return less(as[i], as[j])
	})
	return nil
}

func (s *Server) searchAssistants(w http.ResponseWriter, r *http.Request) {
	as, q, err := s.matchAssistants(r)
	if err != nil {
		fail(w, err)
		return
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	out := []map[string]any{}
	for _, a := range page(as, q.Limit, q.Offset) {
		out = append(out, a.json())
	}
	if q.Offset+q.Limit < len(as) {
		w.Header().Set("X-Pagination-Next", strconv.Itoa(q.Offset+q.Limit))
	}
	writeJSON(w, 200, out)
}

func (s *Server) countAssistants(w http.ResponseWriter, r *http.Request) {
	as, _, err := s.matchAssistants(r)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, len(as))
}

// versions returns an assistant's versions, newest first: a registered
// graph's has one.
func (s *Server) versions(ctx context.Context, id string) ([]*assistant, error) {
	if a, ok := s.byID[id]; ok {
		return []*assistant{a}, nil
	}
	recs, err := s.assistantStore().AssistantVersions(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]*assistant, 0, len(recs))
	for _, rec := range recs {
		a, err := s.fromRecord(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (s *Server) assistantVersions(w http.ResponseWriter, r *http.Request) {
	var q struct {
		Metadata map[string]any `json:"metadata"`
		Limit    int            `json:"limit"`
		Offset   int            `json:"offset"`
	}
	if err := readJSON(r, &q); err != nil {
		fail(w, err)
		return
	}
	vs, err := s.versions(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	var match []*assistant
	for _, a := range vs {
		if matchMetadata(a.Metadata, q.Metadata) {
			match = append(match, a)
		}
	}
	out := []map[string]any{}
	for _, a := range page(match, q.Limit, q.Offset) {
		out = append(out, a.json())
	}
	writeJSON(w, 200, out)
}

func (s *Server) setLatestAssistant(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Version *int `json:"version"`
	}
	if err := readJSON(r, &b); err != nil {
		fail(w, err)
		return
	}
	if b.Version == nil {
		fail(w, &InputError{Field: "version", Err: errors.New("required")})
		return
	}
	ctx := r.Context()
	id := r.PathValue("id")
	if a, ok := s.byID[id]; ok && *b.Version == 1 {
		writeJSON(w, 200, a.json())
		return
	}
	if _, err := s.stored(ctx, id); err != nil {
		fail(w, err)
		return
	}
	if err := s.assistantStore().SetLatestAssistant(ctx, id, *b.Version); err != nil {
		fail(w, err)
		return
	}
	a, err := s.lookupAssistant(ctx, id)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, a.json())
}

func (s *Server) getAssistantGraph(w http.ResponseWriter, r *http.Request) {
	a, err := s.lookupAssistant(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	xray, err := xrayParam(r)
	if err != nil {
		fail(w, err)
		return
	}
	if sg, ok := a.g.(subgrapher); ok && xray > 0 {
		writeJSON(w, 200, sg.drawingXray(xray))
		return
	}
	writeJSON(w, 200, a.g.Drawing())
}

func (s *Server) getAssistantSchemas(w http.ResponseWriter, r *http.Request) {
	a, err := s.lookupAssistant(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, schemasJSON(a.GraphID, a.g.Schemas()))
}

// schemasJSON is LangGraph's GraphSchema.
func schemasJSON(graphID string, sc Schemas) map[string]any {
	return map[string]any{
		"graph_id":       graphID,
		"input_schema":   json.RawMessage(sc.Input),
		"output_schema":  json.RawMessage(sc.Output),
		"state_schema":   json.RawMessage(sc.State),
		"config_schema":  nil,
		"context_schema": nil,
	}
}
