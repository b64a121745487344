package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stategraph/stategraph/a2a"
)

// WithA2A serves the Agent2Agent protocol (A2A 0.3, JSON-RPC) for each
// assistant at /a2a/{assistant_id}, as LangGraph's Agent Server does:
// message/send, message/stream (SSE), tasks/get and tasks/cancel. An A2A
// context is a thread, a task is a run (its id is "thread_id:run_id"),
// an interrupt is the input-required state, and the next message in
// that context answers it (the run resumes with the message's data part,
// or its text). A message's data part (a JSON object) is the graph's
// input; text alone is the input {"messages":[{"role":"user","content":
// text}]}. The agent card is at /a2a/{assistant_id}/.well-known/agent-card.json
// and, as LangGraph serves it, /.well-known/agent-card.json?assistant_id=ID.
// All of it is behind the same authentication as the rest of the API.
func WithA2A() Option { return func(o *options) { o.a2a = true } }

// a2aRoutes mounts the A2A endpoints.
func (s *Server) a2aRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /a2a/{id}/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		s.agentCard(w, r, r.PathValue("id"))
	})
	m.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		s.agentCard(w, r, r.URL.Query().Get("assistant_id"))
	})
	m.HandleFunc("POST /a2a/{id}", func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.a2aAssistant(w, r.PathValue("id"))
		if ok {
			a2a.Handler(&a2aAgent{s: s, a: a}).ServeHTTP(w, r)
		}
	})
}

func (s *Server) a2aAssistant(w http.ResponseWriter, id string) (*assistant, bool) {
	for _, a := range s.assistants {
		if a.ID == id || a.Name == id {
			return a, true
		}
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("a2a: no assistant %q", id))
	return nil, false
}

func (s *Server) agentCard(w http.ResponseWriter, r *http.Request, id string) {
	if id == "" {
		writeError(w, http.StatusBadRequest, "a2a: the agent card needs an assistant: /a2a/{assistant_id}/.well-known/agent-card.json or ?assistant_id=")
		return
	}
	a, ok := s.a2aAssistant(w, id)
	if !ok {
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p != "" {
		scheme = p
	}
	desc := fmt.Sprintf("The stategraph assistant %q (graph %q).", a.Name, a.GraphID)
	writeJSON(w, http.StatusOK, a2a.AgentCard{
		ProtocolVersion:    a2a.ProtocolVersion,
		Name:               a.Name,
		Description:        desc,
		URL:                fmt.Sprintf("%s://%s/a2a/%s", scheme, r.Host, a.ID),
		PreferredTransport: "JSONRPC",
		Version:            "1",
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"application/json", "text/plain"},
		Skills:             []a2a.AgentSkill{{ID: a.ID, Name: a.Name, Description: desc, Tags: []string{"graph", a.GraphID}}},
	})
}

// a2aAgent is one assistant as an A2A agent, over the API's own
// endpoints (so a server with workers runs the tasks on them).
type a2aAgent struct {
	s *Server
	a *assistant
}

// call makes a request to the server's own API as the caller's user.
func (g *a2aAgent) call(ctx context.Context, method, path string, body any) (int, []byte) {
	var rd *bytes.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return http.StatusInternalServerError, []byte(err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	g.s.mux.ServeHTTP(rec, req)
	return rec.code, rec.body.Bytes()
}

// apiError is the detail of an API error answer, as an A2A error.
func apiError(code int, what string, body []byte) error {
	var e struct {
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil || e.Detail == "" {
		e.Detail = strings.TrimSpace(string(body))
	}
	c := a2a.CodeInternal
	switch code {
	case http.StatusNotFound:
		c = a2a.CodeTaskNotFound
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		c = a2a.CodeInvalidParams
	case http.StatusConflict:
		c = a2a.CodeTaskNotCancelable
	}
	return a2a.Errorf(c, "a2a: %s: %s", what, e.Detail)
}

// splitTask splits a task id into its thread and run.
func splitTask(id string) (tid, rid string, err error) {
	tid, rid, ok := strings.Cut(id, ":")
	if !ok || tid == "" || rid == "" {
		return "", "", a2a.Errorf(a2a.CodeTaskNotFound, "a2a: no task %q (a task id is thread_id:run_id)", id)
	}
	return tid, rid, nil
}

// start starts the run of a message: on a new thread without a context,
// as the answer to the interrupt its thread waits at, or as a new input.
// A streamed one streams its nodes' updates.
func (g *a2aAgent) start(ctx context.Context, p a2a.MessageSendParams, streamed bool) (tid, rid string, err error) {
	msg := p.Message
	tid = msg.ContextID
	if tid == "" && msg.TaskID != "" {
		if tid, _, err = splitTask(msg.TaskID); err != nil {
			return "", "", err
		}
	}
	body := map[string]any{"assistant_id": g.a.ID}
	if streamed {
		body["stream_mode"] = []string{"updates"}
	}
	created := tid == ""
	if created {
		code, out := g.call(ctx, http.MethodPost, "/threads", map[string]any{"metadata": map[string]any{"a2a_assistant_id": g.a.ID}})
		if code != http.StatusOK {
			return "", "", apiError(code, "a new context", out)
		}
		var t struct {
			ThreadID string `json:"thread_id"`
		}
		_ = json.Unmarshal(out, &t)
		tid = t.ThreadID
	} else {
		code, out := g.call(ctx, http.MethodGet, "/threads/"+tid+"/state", nil)
		if code == http.StatusNotFound {
			return "", "", a2a.Errorf(a2a.CodeInvalidParams, "a2a: no context %q", tid)
		}
		if code != http.StatusOK {
			return "", "", apiError(code, "context "+tid, out)
		}
		var st struct {
			Interrupts []json.RawMessage `json:"interrupts"`
		}
		_ = json.Unmarshal(out, &st)
		if len(st.Interrupts) > 0 {
			body["command"] = map[string]any{"resume": answer(msg)}
		}
	}
	if _, resume := body["command"]; !resume {
		body["input"] = input(msg)
	}
	code, out := g.call(ctx, http.MethodPost, "/threads/"+tid+"/runs", body)
	if code != http.StatusOK {
		if created { // a refused first message leaves no context behind
			g.call(context.WithoutCancel(ctx), http.MethodDelete, "/threads/"+tid, nil)
		}
		return "", "", apiError(code, fmt.Sprintf("message %q in context %q", msg.MessageID, tid), out)
	}
	var run struct {
		RunID string `json:"run_id"`
	}
	_ = json.Unmarshal(out, &run)
	return tid, run.RunID, nil
}

// input is the graph input of a message: its data part, else its text as
// a user message.
func input(m a2a.Message) any {
	for _, p := range m.Parts {
		if p.Kind == "data" && len(p.Data) > 0 {
			return p.Value()
		}
	}
	return map[string]any{"messages": []map[string]any{{"role": "user", "content": text(m)}}}
}

// answer is the resume value of a message: its data part, else its text.
func answer(m a2a.Message) any {
	for _, p := range m.Parts {
		if p.Kind == "data" && len(p.Data) > 0 {
			return p.Value()
		}
	}
	return text(m)
}

func text(m a2a.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Send implements a2a.Agent.
func (g *a2aAgent) Send(ctx context.Context, p a2a.MessageSendParams) (*a2a.Task, error) {
	tid, rid, err := g.start(ctx, p, false)
	if err != nil {
		return nil, err
	}
	if p.Blocking() {
		if code, out := g.call(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid+"/join", nil); code != http.StatusOK {
			return nil, apiError(code, "task "+tid+":"+rid, out)
		}
	}
	return g.task(ctx, tid, rid)
}

// Stream implements a2a.Agent: the task as started, working, its
// artifacts, then its final status.
func (g *a2aAgent) Stream(ctx context.Context, p a2a.MessageSendParams, emit func(any) error) error {
	tid, rid, err := g.start(ctx, p, true)
	if err != nil {
		return err
	}
	id := tid + ":" + rid
	if err := emit(&a2a.Task{Kind: "task", ID: id, ContextID: tid, Status: a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: now()}}); err != nil {
		return err
	}
	if err := emit(&a2a.TaskStatusUpdateEvent{Kind: "status-update", TaskID: id, ContextID: tid, Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: now()}}); err != nil {
		return err
	}
	if err := g.progress(ctx, tid, rid, emit); err != nil {
		return err
	}
	if code, out := g.call(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid+"/join?cancel_on_disconnect=1", nil); code != http.StatusOK {
		return apiError(code, "task "+id, out)
	}
	t, err := g.task(ctx, tid, rid)
	if err != nil {
		return err
	}
	for i, art := range t.Artifacts {
		if err := emit(&a2a.TaskArtifactUpdateEvent{Kind: "artifact-update", TaskID: id, ContextID: tid, Artifact: art, LastChunk: i == len(t.Artifacts)-1}); err != nil {
			return err
		}
	}
	return emit(&a2a.TaskStatusUpdateEvent{Kind: "status-update", TaskID: id, ContextID: tid, Status: t.Status, Final: true})
}

// Task implements a2a.Agent.
func (g *a2aAgent) Task(ctx context.Context, p a2a.TaskQueryParams) (*a2a.Task, error) {
	tid, rid, err := splitTask(p.ID)
	if err != nil {
		return nil, err
	}
	return g.task(ctx, tid, rid)
}

// Cancel implements a2a.Agent: a pending or running task's run is
// cancelled (action interrupt) and waited for.
func (g *a2aAgent) Cancel(ctx context.Context, p a2a.TaskIDParams) (*a2a.Task, error) {
	tid, rid, err := splitTask(p.ID)
	if err != nil {
		return nil, err
	}
	if code, out := g.call(ctx, http.MethodPost, "/threads/"+tid+"/runs/"+rid+"/cancel?wait=1", nil); code != http.StatusNoContent && code != http.StatusOK {
		return nil, apiError(code, "cancel task "+p.ID, out)
	}
	return g.task(ctx, tid, rid)
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
