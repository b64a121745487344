package server

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"time"
)

// Thread statuses, as LangGraph names them.
const (
	StatusIdle        = "idle"
	StatusBusy        = "busy"
	StatusInterrupted = "interrupted"
	StatusError       = "error"
)

// Run statuses, as LangGraph names them.
const (
	RunPending     = "pending"
	RunRunning     = "running"
	RunSuccess     = "success"
	RunError       = "error"
	RunInterrupted = "interrupted"
	RunTimeout     = "timeout"
)

// ErrNotFound: the store has no thread or run by that id.
var ErrNotFound = errors.New("server: not found")

// ErrExists: a thread with that id exists already.
var ErrExists = errors.New("server: already exists")

// ThreadRecord is what the server keeps about a thread beside its
// checkpoints: its metadata, its status and the graph it runs.
type ThreadRecord struct {
	ThreadID  string         `json:"thread_id"`
	GraphID   string         `json:"graph_id,omitempty"`
	Metadata  map[string]any `json:"metadata"`
	Status    string         `json:"status"`
	Error     string         `json:"error,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// RunRecord is a run as GET /threads/{id}/runs/{run_id} returns it; Kwargs
// keeps the request it was created with.
type RunRecord struct {
	RunID             string          `json:"run_id"`
	ThreadID          string          `json:"thread_id"`
	AssistantID       string          `json:"assistant_id"`
	Status            string          `json:"status"`
	Metadata          map[string]any  `json:"metadata"`
	MultitaskStrategy string          `json:"multitask_strategy"`
	Kwargs            json.RawMessage `json:"kwargs,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
	// Owner is the process executing a run of this server (its procid),
	// so that a server started again can tell the runs its killed process
	// left (see orphans.go); "" for a worker run.
	Owner string `json:"owner,omitempty"`
	// Error is why a run in status error failed, for joins after the run
	// left the server's memory.
	Error string `json:"error,omitempty"`
}

// ThreadQuery selects threads in SearchThreads. Zero fields match all.
type ThreadQuery struct {
	Metadata  map[string]any
	Status    string
	IDs       []string
	Limit     int
	Offset    int
	SortBy    string // thread_id, status, created_at (default), updated_at
	SortOrder string // asc or desc (default)
}

// Store keeps thread and run records. MemoryStore and SQLiteStore
// implement it; both are safe for concurrent use.
type Store interface {
	CreateThread(ctx context.Context, t ThreadRecord) error
	GetThread(ctx context.Context, id string) (ThreadRecord, error)
	PutThread(ctx context.Context, t ThreadRecord) error
	DeleteThread(ctx context.Context, id string) error
	SearchThreads(ctx context.Context, q ThreadQuery) ([]ThreadRecord, error)
	PutRun(ctx context.Context, r RunRecord) error
	GetRun(ctx context.Context, threadID, runID string) (RunRecord, error)
	// ListRuns lists a thread's runs, newest first.
	ListRuns(ctx context.Context, threadID string, status string, limit, offset int) ([]RunRecord, error)
	DeleteRun(ctx context.Context, threadID, runID string) error
}

// matchMetadata reports whether md has every key of filter with an equal
// value (compared as JSON values).
func matchMetadata(md, filter map[string]any) bool {
	for k, want := range filter {
		got, ok := md[k]
		if !ok || !reflect.DeepEqual(jsonRound(got), jsonRound(want)) {
			return false
		}
	}
	return true
}

func jsonRound(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// selectThreads filters, sorts and pages records for a query.
func selectThreads(all []ThreadRecord, q ThreadQuery) []ThreadRecord {
	var ids map[string]bool
	if len(q.IDs) > 0 {
		ids = map[string]bool{}
		for _, id := range q.IDs {
			ids[id] = true
		}
	}
	var out []ThreadRecord
	for _, t := range all {
		if (ids != nil && !ids[t.ThreadID]) || (q.Status != "" && t.Status != q.Status) || !matchMetadata(t.Metadata, q.Metadata) {
			continue
		}
		out = append(out, t)
	}
	less := func(a, b ThreadRecord) bool {
		switch q.SortBy {
		case "thread_id":
			return a.ThreadID < b.ThreadID
		case "status":
			return a.Status < b.Status
		case "updated_at", "state_updated_at":
			return a.UpdatedAt.Before(b.UpdatedAt)
		}
		if a.CreatedAt.Equal(b.CreatedAt) {
			return a.ThreadID < b.ThreadID
		}
		return a.CreatedAt.Before(b.CreatedAt)
	}
	desc := q.SortOrder != "asc"
	sort.SliceStable(out, func(i, j int) bool {
		if desc {
			return less(out[j], out[i])
		}
		return less(out[i], out[j])
	})
	if q.Offset > 0 {
		if q.Offset >= len(out) {
			return nil
		}
		out = out[q.Offset:]
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out
}
