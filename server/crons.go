package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"time"

	"github.com/google/uuid"
)

// cron is a schedule that starts runs, on a thread or on a new thread each
// time. Crons are kept in the server's memory, or with WithWorkers in
// PostgreSQL (see cronStore).
type cron struct {
	ID             string
	AssistantID    string
	ThreadID       string
	Schedule       string
	Timezone       string
	EndTime        time.Time
	Payload        map[string]json.RawMessage // the run request
	Metadata       map[string]any
	Enabled        bool
	OnRunCompleted string // delete or keep (crons without a thread)
	Owner          string // the user who made it, with WithAuth
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Next           time.Time

	sched *cronSchedule
	loc   *time.Location
}

func (c *cron) json() map[string]any {
	var tid, end, next any
	if c.ThreadID != "" {
		tid = c.ThreadID
	}
	if !c.EndTime.IsZero() {
		end = timeJSON(c.EndTime)
	}
	if !c.Next.IsZero() {
		next = timeJSON(c.Next)
	}
	return map[string]any{
		"cron_id": c.ID, "assistant_id": c.AssistantID, "thread_id": tid, "schedule": c.Schedule,
		"timezone": c.Timezone, "end_time": end, "payload": c.Payload, "metadata": c.Metadata,
		"enabled": c.Enabled, "on_run_completed": c.OnRunCompleted, "user_id": nil,
		"created_at": timeJSON(c.CreatedAt), "updated_at": timeJSON(c.UpdatedAt), "next_run_date": next,
	}
}

// WithCronTicks makes the server check its crons at each time received
// from ticks instead of every second of the wall clock (for tests, and
// for programs that drive time themselves).
func WithCronTicks(ticks <-chan time.Time) Option { return func(o *options) { o.cronTicks = ticks } }

// cronLoop fires due crons at each tick until the server closes.
func (s *Server) cronLoop() {
	defer s.wg.Done()
	ticks := s.opts.cronTicks
	if ticks == nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-ticks:
			s.fireCrons(now)
			s.sweepTTLsAt(now)
		}
	}
}

// fireCrons starts a run for each enabled cron due at now.
func (s *Server) fireCrons(now time.Time) {
	type firing struct {
		tid   string
		body  json.RawMessage
		id    string
		owner string
	}
	var due []firing
	cs, err := s.crons.all(s.ctx)
	if err != nil {
		if s.opts.logf != nil {
			s.opts.logf("server: crons: %v", err)
		}
		return
	}
	for _, c := range cs {
		if !c.Enabled || c.Next.IsZero() || c.Next.After(now) {
			continue
		}
		prev := c.Next
		if !c.EndTime.IsZero() && now.After(c.EndTime) {
			c.Enabled, c.Next = false, time.Time{}
			_, _ = s.crons.advance(s.ctx, c, prev)
			continue
		}
		c.Next = c.sched.next(now.In(c.loc))
		if won, err := s.crons.advance(s.ctx, c, prev); err != nil || !won {
			continue // another replica fired it, or it changed meanwhile
		}
		body := maps.Clone(c.Payload)
		body["assistant_id"], _ = json.Marshal(c.AssistantID)
		if _, ok := body["multitask_strategy"]; !ok {
			body["multitask_strategy"] = json.RawMessage(`"enqueue"`)
		}
		if c.ThreadID == "" && c.OnRunCompleted == "keep" {
			body["on_completion"] = json.RawMessage(`"keep"`)
		}
		data, _ := json.Marshal(body)
		due = append(due, firing{tid: c.ThreadID, body: data, id: c.ID, owner: c.Owner})
	}
	for _, f := range due {
		ctx := s.ctx
		if f.owner != "" {
			ctx = context.WithValue(ctx, userKey{}, f.owner) // its runs are its owner's
		}
		var err error
		if s.cl != nil {
			_, err = s.enqueueRun(ctx, f.tid, f.body)
		} else {
			_, _, err = s.startRun(ctx, f.tid, f.body)
		}
		if err != nil && s.opts.logf != nil {
			s.opts.logf("server: cron %q: %v", f.id, err)
		}
	}
}

type cronRequest struct {
	Schedule       *string         `json:"schedule"`
	Timezone       *string         `json:"timezone"`
	EndTime        *time.Time      `json:"end_time"`
	Enabled        *bool           `json:"enabled"`
	OnRunCompleted *string         `json:"on_run_completed"`
	Metadata       map[string]any  `json:"metadata"`
	AssistantID    string          `json:"assistant_id"`
	Raw            json.RawMessage `json:"-"`
}

// cronOnly are the keys of a cron request that are not the run's.
var cronOnly = []string{"schedule", "timezone", "end_time", "enabled", "on_run_completed"}

// apply sets the cron's fields from a request and checks them.
func (s *Server) applyCron(ctx context.Context, c *cron, req cronRequest, payload map[string]json.RawMessage) error {
	if req.Schedule != nil {
		sc, err := parseSchedule(*req.Schedule)
		if err != nil {
			return &InputError{Field: "schedule", Err: err}
		}
		c.Schedule, c.sched = *req.Schedule, sc
	}
	if req.Timezone != nil {
		loc, err := time.LoadLocation(*req.Timezone)
		if err != nil {
			return &InputError{Field: "timezone", Err: err}
		}
		c.Timezone = *req.Timezone
		c.loc = loc
	}
	if c.loc == nil {
		c.loc = time.UTC
	}
	if req.EndTime != nil {
		c.EndTime = *req.EndTime
	}
	if req.Enabled != nil {
		c.Enabled = *req.Enabled
	}
	if req.OnRunCompleted != nil {
		if *req.OnRunCompleted != "delete" && *req.OnRunCompleted != "keep" {
			return &InputError{Field: "on_run_completed", Err: fmt.Errorf("%q is not delete or keep", *req.OnRunCompleted)}
		}
		c.OnRunCompleted = *req.OnRunCompleted
	}
	if req.Metadata != nil {
		c.Metadata = req.Metadata
	}
	for k, v := range payload {
		if !contains(cronOnly, k) && k != "metadata" {
			c.Payload[k] = v
		}
	}
	// The run it will start must be one the server would take.
	var rr runRequest
	data, _ := json.Marshal(c.Payload)
	if err := json.Unmarshal(data, &rr); err != nil {
		return &InputError{Err: err}
	}
	if err := rr.validate(); err != nil {
		return err
	}
	if err := s.checkWebhook(rr.Webhook); err != nil {
		return err
	}
	a, err := s.lookupAssistant(ctx, c.AssistantID)
	if err != nil {
		return err
	}
	if _, err := parseModes(rr.StreamMode); err != nil {
		return err
	}
	if err := a.g.CheckInput(rr.Input); err != nil {
		return err
	}
	c.Next = time.Time{}
	if c.Enabled {
		c.Next = c.sched.next(s.opts.now().In(c.loc))
	}
	return nil
}

func (s *Server) createCron(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	if err := readJSON(r, &raw); err != nil {
		fail(w, err)
		return
	}
	data, _ := json.Marshal(raw)
	var req cronRequest
	if err := json.Unmarshal(data, &req); err != nil {
		fail(w, &InputError{Err: err})
		return
	}
	if req.Schedule == nil {
		fail(w, &InputError{Field: "schedule", Err: errors.New("required")})
		return
	}
	a, err := s.lookupAssistant(r.Context(), req.AssistantID)
	if err != nil {
		fail(w, err)
		return
	}
	tid := r.PathValue("tid")
	if tid != "" {
		if _, err := s.threadFor(r.Context(), tid); err != nil {
			fail(w, err)
			return
		}
	}
	now := s.opts.now().UTC()
	owner, _ := userOf(r.Context())
	c := &cron{ID: uuid.NewString(), AssistantID: a.ID, ThreadID: tid, Timezone: "UTC", Enabled: true, OnRunCompleted: "delete", Owner: owner,
		Payload: map[string]json.RawMessage{}, Metadata: map[string]any{}, CreatedAt: now, UpdatedAt: now}
	if err := s.applyCron(r.Context(), c, req, raw); err != nil {
		fail(w, err)
		return
	}
	if err := s.crons.put(r.Context(), c); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, c.json())
}

func (s *Server) patchCron(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	if err := readJSON(r, &raw); err != nil {
		fail(w, err)
		return
	}
	data, _ := json.Marshal(raw)
	var req cronRequest
	if err := json.Unmarshal(data, &req); err != nil {
		fail(w, &InputError{Err: err})
		return
	}
	c, err := s.crons.get(r.Context(), r.PathValue("cid"))
	if err == nil && !cronVisible(r, c) {
		err = fmt.Errorf("cron %q: %w", r.PathValue("cid"), ErrNotFound)
	}
	if err != nil {
		fail(w, err)
		return
	}
	delete(raw, "assistant_id")
	if err := s.applyCron(r.Context(), c, req, raw); err != nil {
		fail(w, err)
		return
	}
	c.UpdatedAt = s.opts.now().UTC()
	if err := s.crons.put(r.Context(), c); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, c.json())
}

func (s *Server) deleteCron(w http.ResponseWriter, r *http.Request) {
	c, err := s.crons.get(r.Context(), r.PathValue("cid"))
	if err == nil && !cronVisible(r, c) {
		err = fmt.Errorf("cron %q: %w", r.PathValue("cid"), ErrNotFound)
	}
	if err == nil {
		err = s.crons.del(r.Context(), c.ID)
	}
	if err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) matchCrons(r *http.Request) ([]map[string]any, int, int, error) {
	var q struct {
		AssistantID string         `json:"assistant_id"`
		ThreadID    string         `json:"thread_id"`
		Enabled     *bool          `json:"enabled"`
		Metadata    map[string]any `json:"metadata"`
		Limit       int            `json:"limit"`
		Offset      int            `json:"offset"`
	}
	if err := readJSON(r, &q); err != nil {
		return nil, 0, 0, err
	}
	if q.AssistantID != "" {
		if a, ok := s.byID[q.AssistantID]; ok {
			q.AssistantID = a.ID
		}
	}
	all, err := s.crons.all(r.Context())
	if err != nil {
		return nil, 0, 0, err
	}
	var cs []*cron
	for _, c := range all {
		if (q.AssistantID != "" && c.AssistantID != q.AssistantID) || (q.ThreadID != "" && c.ThreadID != q.ThreadID) ||
			(q.Enabled != nil && c.Enabled != *q.Enabled) || !matchMetadata(c.Metadata, q.Metadata) || !cronVisible(r, c) {
			continue
		}
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		return cs[i].CreatedAt.Before(cs[j].CreatedAt) || (cs[i].CreatedAt.Equal(cs[j].CreatedAt) && cs[i].ID < cs[j].ID)
	})
	out := []map[string]any{}
	for _, c := range cs {
		out = append(out, c.json())
	}
	return out, q.Limit, q.Offset, nil
}

func (s *Server) searchCrons(w http.ResponseWriter, r *http.Request) {
	out, limit, offset, err := s.matchCrons(r)
	if err != nil {
		fail(w, err)
		return
	}
	if limit <= 0 {
		limit = 10
	}
	out = page(out, limit, offset)
	if out == nil {
		out = []map[string]any{}
	}
	writeJSON(w, 200, out)
}

func (s *Server) countCrons(w http.ResponseWriter, r *http.Request) {
	out, _, _, err := s.matchCrons(r)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, len(out))
}

// cronVisible reports whether the request's user may see a cron.
func cronVisible(r *http.Request, c *cron) bool {
	user, ok := userOf(r.Context())
	return !ok || c.Owner == user
}
