package server

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"sync"
)

// MemoryStore keeps thread and run records in memory: for tests and for a
// server whose checkpoints are in memory too.
type MemoryStore struct {
	mu      sync.Mutex
	threads map[string]ThreadRecord
	runs    map[string]map[string]RunRecord // thread → run → record

	assistants memoryAssistants
	ttl        memoryTTLs
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{threads: map[string]ThreadRecord{}, runs: map[string]map[string]RunRecord{}}
}

func cloneThread(t ThreadRecord) ThreadRecord {
	t.Metadata = maps.Clone(t.Metadata)
	return t
}

// CreateThread stores a new thread; ErrExists when its id is taken.
func (m *MemoryStore) CreateThread(_ context.Context, t ThreadRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.threads[t.ThreadID]; ok {
		return fmt.Errorf("thread %q: %w", t.ThreadID, ErrExists)
	}
	m.threads[t.ThreadID] = cloneThread(t)
	return nil
}

// GetThread returns a thread; ErrNotFound when there is none.
func (m *MemoryStore) GetThread(_ context.Context, id string) (ThreadRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[id]
	if !ok {
		return ThreadRecord{}, fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	return cloneThread(t), nil
}

// PutThread stores a thread, replacing the record of its id.
func (m *MemoryStore) PutThread(_ context.Context, t ThreadRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.threads[t.ThreadID] = cloneThread(t)
	return nil
}

// DeleteThread removes a thread and its runs.
func (m *MemoryStore) DeleteThread(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.threads[id]; !ok {
		return fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	delete(m.threads, id)
	delete(m.runs, id)
	return nil
}

// SearchThreads returns the threads the query selects.
func (m *MemoryStore) SearchThreads(_ context.Context, q ThreadQuery) ([]ThreadRecord, error) {
	m.mu.Lock()
	all := make([]ThreadRecord, 0, len(m.threads))
	for _, t := range m.threads {
		all = append(all, cloneThread(t))
	}
	m.mu.Unlock()
	return selectThreads(all, q), nil
}

// PutRun stores a run, replacing the record of its id.
func (m *MemoryStore) PutRun(_ context.Context, r RunRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs[r.ThreadID] == nil {
		m.runs[r.ThreadID] = map[string]RunRecord{}
	}
	r.Metadata = maps.Clone(r.Metadata)
	m.runs[r.ThreadID][r.RunID] = r
	return nil
}

// GetRun returns a run of a thread; ErrNotFound when there is none.
func (m *MemoryStore) GetRun(_ context.Context, threadID, runID string) (RunRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[threadID][runID]
	if !ok {
		return RunRecord{}, fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	r.Metadata = maps.Clone(r.Metadata)
	return r, nil
}

// ListRuns lists a thread's runs, newest first.
func (m *MemoryStore) ListRuns(_ context.Context, threadID, status string, limit, offset int) ([]RunRecord, error) {
	m.mu.Lock()
	var out []RunRecord
	for _, r := range m.runs[threadID] {
		if status == "" || r.Status == status {
			r.Metadata = maps.Clone(r.Metadata)
			out = append(out, r)
		}
	}
	m.mu.Unlock()
	sortRuns(out)
	return page(out, limit, offset), nil
}

// DeleteRun removes a run.
func (m *MemoryStore) DeleteRun(_ context.Context, threadID, runID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[threadID][runID]; !ok {
		return fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	delete(m.runs[threadID], runID)
	return nil
}

func sortRuns(rs []RunRecord) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].CreatedAt.Equal(rs[j].CreatedAt) {
			return rs[i].RunID > rs[j].RunID
		}
		return rs[i].CreatedAt.After(rs[j].CreatedAt)
	})
}

func page[T any](xs []T, limit, offset int) []T {
	if offset > 0 {
		if offset >= len(xs) {
			return nil
		}
		xs = xs[offset:]
	}
	if limit > 0 && len(xs) > limit {
		xs = xs[:limit]
	}
	return xs
}
