package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// assistant is a registered graph's one assistant.
type assistant struct {
	ID        string
	GraphID   string
	Name      string
	CreatedAt time.Time
	g         Graph
}

func (a *assistant) json() map[string]any {
	return map[string]any{
		"assistant_id": a.ID,
		"graph_id":     a.GraphID,
		"name":         a.Name,
		"description":  nil,
		"config":       map[string]any{"configurable": map[string]any{}},
		"context":      map[string]any{},
		"metadata":     map[string]any{"created_by": "system"},
		"version":      1,
		"created_at":   timeJSON(a.CreatedAt),
		"updated_at":   timeJSON(a.CreatedAt),
	}
}

// assistant finds an assistant by its id or its graph's id.
func (s *Server) assistant(id string) (*assistant, error) {
	a, ok := s.byID[id]
	if !ok {
		return nil, fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return a, nil
}

func (s *Server) getAssistant(w http.ResponseWriter, r *http.Request) {
	a, err := s.assistant(r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, a.json())
}

type assistantQuery struct {
	GraphID  string         `json:"graph_id"`
	Name     string         `json:"name"`
	Metadata map[string]any `json:"metadata"`
	Limit    int            `json:"limit"`
	Offset   int            `json:"offset"`
}

func (s *Server) matchAssistants(r *http.Request) ([]*assistant, assistantQuery, error) {
	var q assistantQuery
	if err := readJSON(r, &q); err != nil {
		return nil, q, err
	}
	var out []*assistant
	for _, a := range s.assistants {
		md := map[string]any{"created_by": "system"}
		if (q.GraphID != "" && a.GraphID != q.GraphID) || (q.Name != "" && a.Name != q.Name) || !matchMetadata(md, q.Metadata) {
			continue
		}
		out = append(out, a)
	}
	return out, q, nil
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

func (s *Server) getAssistantGraph(w http.ResponseWriter, r *http.Request) {
	a, err := s.assistant(r.PathValue("id"))
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
	a, err := s.assistant(r.PathValue("id"))
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
