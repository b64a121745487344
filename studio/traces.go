package studio

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	db     *sql.DB // where runs are kept, or nil (see Persist)
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
	t.record(s.SpanContext().TraceID().String(), sp)
}

// record adds sp to the run of trace id, and keeps the run in the
// database once its own span ends.
func (t *Traces) record(id string, sp traceSpan) {
	if keep := t.add(id, sp); keep != nil {
		t.save(*keep) // once per run, as its own span ends
	}
}

// Forget drops every run recorded for thread, in memory and in the
// database (see Persist): Beside calls it when the API deletes the
// thread, so that a deleted thread leaves no trace behind.
func (t *Traces) Forget(ctx context.Context, thread string) error {
	t.mu.Lock()
	for _, id := range t.thread[thread] {
		delete(t.byID, id)
		t.order = slices.DeleteFunc(t.order, func(x string) bool { return x == id })
	}
	delete(t.thread, thread)
	db := t.db
	t.mu.Unlock()
	if db == nil {
		return nil
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM studio_traces WHERE thread_id = ?`, thread); err != nil {
		return fmt.Errorf("studio: forget the traces of thread %q: %w", thread, err)
	}
	return nil
}

// add records sp in its run; it returns a copy of the run to keep when sp
// is the run's own span and runs are kept in a database.
func (t *Traces) add(id string, sp traceSpan) *runTrace {
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
	if sp.ParentID == "" && t.db != nil && rt.Thread != "" {
		// The run's own span ends last: keep the whole run.
		keep := *rt
		keep.Spans = slices.Clone(rt.Spans)
		return &keep
	}
	return nil
}

// Persist keeps every run t records from now on in db, a SQLite database
// (table studio_traces, created if missing, holding the newest runs up to
// the limit), and first loads the runs already kept there: the trace
// view then outlives the process.
func (t *Traces) Persist(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS studio_traces (trace_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, started TEXT NOT NULL, body TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("studio: traces table: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT body FROM studio_traces ORDER BY started DESC LIMIT ?`, t.limit)
	if err != nil {
		return fmt.Errorf("studio: read traces: %w", err)
	}
	defer rows.Close()
	var runs []runTrace
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return fmt.Errorf("studio: read traces: %w", err)
		}
		var rt runTrace
		if err := json.Unmarshal([]byte(body), &rt); err != nil {
			return fmt.Errorf("studio: read traces: a run that is not JSON: %w", err)
		}
		runs = append(runs, rt)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("studio: read traces: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(runs) - 1; i >= 0; i-- { // oldest first
		rt := runs[i]
		if _, ok := t.byID[rt.TraceID]; ok {
			continue
		}
		t.byID[rt.TraceID] = &rt
		t.order = append(t.order, rt.TraceID)
		t.thread[rt.Thread] = append(t.thread[rt.Thread], rt.TraceID)
		t.evict()
	}
	t.db = db
	return nil
}

// save writes one finished run and drops the runs beyond the limit.
func (t *Traces) save(rt runTrace) {
	t.mu.Lock()
	db := t.db
	t.mu.Unlock()
	body, err := json.Marshal(rt)
	if err != nil {
		return
	}
	ctx := context.Background()
	// A trace that cannot be kept is still shown from memory.
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO studio_traces (trace_id, thread_id, started, body) VALUES (?, ?, ?, ?)`,
		rt.TraceID, rt.Thread, rt.Start.UTC().Format(time.RFC3339Nano), string(body)); err != nil {
		return
	}
	_, _ = db.ExecContext(ctx, `DELETE FROM studio_traces WHERE trace_id NOT IN (SELECT trace_id FROM studio_traces ORDER BY started DESC LIMIT ?)`, t.limit)
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

// ServeHTTP answers GET ?thread=ID with {"recording": true, "kept":
// "database" or "memory", "runs": […]}: the thread's recorded runs,
// newest first, each with its spans ordered by start; kept says whether
// they outlive the process (Persist). A nil *Traces answers
// {"recording": false, "runs": []}.
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
	kept := "memory"
	if t.db != nil {
		kept = "database"
	}
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
	_ = json.NewEncoder(w).Encode(map[string]any{"recording": true, "kept": kept, "runs": out})
}
