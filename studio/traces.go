package studio

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Traces records, in memory, the spans package telemetry makes for the
// runs of a server's graphs (runs, steps, tasks, checkpoint writes, model
// and tool calls), by thread, for the page's trace view: nothing leaves
// the process. It is an OpenTelemetry SpanProcessor: give it to the SDK's
// TracerProvider (sdktrace.WithSpanProcessor) that telemetry.New is given,
// and to Beside with WithTraces. It keeps the newest runs, at most the
// number NewTraces is given. It is safe for concurrent use.
type Traces struct {
	mu     sync.Mutex
	limit  int
	byID   map[string]*runTrace
	order  []string // trace ids, oldest first
	thread map[string][]string
}

// NewTraces returns a recorder keeping the spans of the newest limit runs
// (a run is one trace: one Invoke or Stream of a graph).
func NewTraces(limit int) *Traces {
	if limit <= 0 {
		limit = 1
	}
	return &Traces{limit: limit, byID: map[string]*runTrace{}, thread: map[string][]string{}}
}

type runTrace struct {
	TraceID string      `json:"trace_id"`
	Thread  string      `json:"thread_id"`
	Run     string      `json:"run_id"`
	Graph   string      `json:"graph"`
	Start   time.Time   `json:"start"`
	End     time.Time   `json:"end"`
	Spans   []traceSpan `json:"spans"`
}

type traceSpan struct {
	SpanID   string         `json:"span_id"`
	ParentID string         `json:"parent_id,omitempty"`
	Name     string         `json:"name"`
	Start    time.Time      `json:"start"`
	End      time.Time      `json:"end"`
	Error    string         `json:"error,omitempty"`
	Attrs    map[string]any `json:"attributes"`
	Events   []traceEvent   `json:"events,omitempty"`
}

type traceEvent struct {
	Name  string         `json:"name"`
	Time  time.Time      `json:"time"`
	Attrs map[string]any `json:"attributes,omitempty"`
}

// OnStart is part of sdktrace.SpanProcessor: spans are recorded when they end.
func (t *Traces) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd records a span that ended.
func (t *Traces) OnEnd(s sdktrace.ReadOnlySpan) {
	sp := traceSpan{
		SpanID: s.SpanContext().SpanID().String(), Name: s.Name(),
		Start: s.StartTime(), End: s.EndTime(), Attrs: map[string]any{},
	}
	if p := s.Parent(); p.IsValid() {
		sp.ParentID = p.SpanID().String()
	}
	if st := s.Status(); st.Code == codes.Error {
		sp.Error = st.Description
		if sp.Error == "" {
			sp.Error = "error"
		}
	}
	for _, kv := range s.Attributes() {
		sp.Attrs[string(kv.Key)] = kv.Value.AsInterface()
	}
	for _, ev := range s.Events() {
		e := traceEvent{Name: ev.Name, Time: ev.Time}
		if len(ev.Attributes) > 0 {
			e.Attrs = map[string]any{}
			for _, kv := range ev.Attributes {
				e.Attrs[string(kv.Key)] = kv.Value.AsInterface()
			}
		}
		sp.Events = append(sp.Events, e)
	}
	id := s.SpanContext().TraceID().String()
	t.mu.Lock()
	defer t.mu.Unlock()
	rt, ok := t.byID[id]
	if !ok {
		rt = &runTrace{TraceID: id, Start: sp.Start, End: sp.End}
		t.byID[id] = rt
		t.order = append(t.order, id)
		t.evict()
	}
	rt.Spans = append(rt.Spans, sp)
	if sp.Start.Before(rt.Start) {
		rt.Start = sp.Start
	}
	if sp.End.After(rt.End) {
		rt.End = sp.End
	}
	if th, ok := sp.Attrs["stategraph.thread.id"].(string); ok && rt.Thread == "" {
		rt.Thread = th
		t.thread[th] = append(t.thread[th], id)
	}
	if run, ok := sp.Attrs["stategraph.run.id"].(string); ok && rt.Run == "" {
		rt.Run = run
	}
	if g, ok := sp.Attrs["stategraph.graph.name"].(string); ok && rt.Graph == "" {
		rt.Graph = g
	}
}

// evict drops the oldest runs beyond the limit.
func (t *Traces) evict() {
	for len(t.order) > t.limit {
		old := t.byID[t.order[0]]
		t.order = t.order[1:]
		delete(t.byID, old.TraceID)
		if old.Thread != "" {
			ids := slices.DeleteFunc(t.thread[old.Thread], func(id string) bool { return id == old.TraceID })
			if len(ids) == 0 {
				delete(t.thread, old.Thread)
			} else {
				t.thread[old.Thread] = ids
			}
		}
	}
}

// Shutdown is part of sdktrace.SpanProcessor; it keeps what was recorded.
func (t *Traces) Shutdown(context.Context) error { return nil }

// ForceFlush is part of sdktrace.SpanProcessor; spans are recorded at once.
func (t *Traces) ForceFlush(context.Context) error { return nil }

// ServeHTTP answers GET ?thread=ID with {"recording": true, "runs": […]}:
// the thread's recorded runs, newest first, each with its spans ordered
// by start. A nil *Traces answers {"recording": false, "runs": []}.
func (t *Traces) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	thread := r.URL.Query().Get("thread")
	if thread == "" {
		http.Error(w, `studio: traces: give ?thread=ID`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if t == nil {
		_, _ = w.Write([]byte(`{"recording":false,"runs":[]}`))
		return
	}
	t.mu.Lock()
	out := []runTrace{}
	for _, id := range t.thread[thread] {
		rt := *t.byID[id]
		rt.Spans = slices.Clone(rt.Spans)
		out = append(out, rt)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b runTrace) int { return b.Start.Compare(a.Start) })
	for _, rt := range out {
		slices.SortStableFunc(rt.Spans, func(a, b traceSpan) int { return a.Start.Compare(b.Start) })
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"recording": true, "runs": out})
}
