package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// AssistantRecord is one version of an assistant made through the API
// (POST /assistants, PATCH /assistants/{id}): a graph with its own config,
// context and metadata. The assistants of the registered graphs are not
// stored: they are the server's own.
type AssistantRecord struct {
	AssistantID string         `json:"assistant_id"`
	GraphID     string         `json:"graph_id"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Config      RunConfigJSON  `json:"config"`
	Context     map[string]any `json:"context"`
	Metadata    map[string]any `json:"metadata"`
	Version     int            `json:"version"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// RunConfigJSON is LangGraph's config of an assistant or a run: tags,
// recursion_limit and configurable.
type RunConfigJSON struct {
	Tags           []string       `json:"tags,omitempty"`
	RecursionLimit int            `json:"recursion_limit,omitempty"`
	Configurable   map[string]any `json:"configurable"`
}

// AssistantStore keeps assistants made through the API, every version of
// each. A Store that implements it (MemoryStore, SQLiteStore,
// PostgresStore do) keeps them with the threads; with one that does not,
// the server keeps them in memory.
type AssistantStore interface {
	// PutAssistant stores a new version of an assistant (a.Version) and
	// makes it the latest; ErrExists when that version is stored already.
	PutAssistant(ctx context.Context, a AssistantRecord) error
	// Assistants returns the latest version of every assistant.
	Assistants(ctx context.Context) ([]AssistantRecord, error)
	// AssistantVersions returns every version of an assistant, newest
	// first; ErrNotFound when it has none.
	AssistantVersions(ctx context.Context, id string) ([]AssistantRecord, error)
	// SetLatestAssistant makes a stored version the latest; ErrNotFound
	// when there is no such version.
	SetLatestAssistant(ctx context.Context, id string, version int) error
	// DeleteAssistant removes every version; ErrNotFound when there is
	// none.
	DeleteAssistant(ctx context.Context, id string) error
}

func cloneAssistant(a AssistantRecord) AssistantRecord {
	a.Metadata, a.Context = maps.Clone(a.Metadata), maps.Clone(a.Context)
	a.Config.Configurable = maps.Clone(a.Config.Configurable)
	a.Config.Tags = slices.Clone(a.Config.Tags)
	return a
}

// memoryAssistants is the AssistantStore of a MemoryStore, and of a
// server whose Store keeps none.
type memoryAssistants struct {
	versions map[string][]AssistantRecord // oldest first
	latest   map[string]int
}

func (m *memoryAssistants) put(a AssistantRecord) error {
	if m.versions == nil {
		m.versions, m.latest = map[string][]AssistantRecord{}, map[string]int{}
	}
	for _, v := range m.versions[a.AssistantID] {
		if v.Version == a.Version {
			return fmt.Errorf("assistant %q version %d: %w", a.AssistantID, a.Version, ErrExists)
		}
	}
	m.versions[a.AssistantID] = append(m.versions[a.AssistantID], cloneAssistant(a))
	m.latest[a.AssistantID] = a.Version
	return nil
}

func (m *memoryAssistants) all() []AssistantRecord {
	var out []AssistantRecord
	for id, vs := range m.versions {
		for _, v := range vs {
			if v.Version == m.latest[id] {
				out = append(out, cloneAssistant(v))
			}
		}
	}
	return out
}

func (m *memoryAssistants) list(id string) ([]AssistantRecord, error) {
	vs := m.versions[id]
	if len(vs) == 0 {
		return nil, fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	out := make([]AssistantRecord, 0, len(vs))
	for i := len(vs) - 1; i >= 0; i-- {
		out = append(out, cloneAssistant(vs[i]))
	}
	return out, nil
}

func (m *memoryAssistants) setLatest(id string, version int) error {
	for _, v := range m.versions[id] {
		if v.Version == version {
			m.latest[id] = version
			return nil
		}
	}
	return fmt.Errorf("assistant %q version %d: %w", id, version, ErrNotFound)
}

func (m *memoryAssistants) del(id string) error {
	if len(m.versions[id]) == 0 {
		return fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	delete(m.versions, id)
	delete(m.latest, id)
	return nil
}

// PutAssistant stores a new version of an assistant (AssistantStore).
func (m *MemoryStore) PutAssistant(_ context.Context, a AssistantRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.assistants.put(a)
}

// Assistants returns the latest version of every assistant.
func (m *MemoryStore) Assistants(context.Context) ([]AssistantRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.assistants.all(), nil
}

// AssistantVersions returns every version of an assistant, newest first.
func (m *MemoryStore) AssistantVersions(_ context.Context, id string) ([]AssistantRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.assistants.list(id)
}

// SetLatestAssistant makes a stored version the latest.
func (m *MemoryStore) SetLatestAssistant(_ context.Context, id string, version int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.assistants.setLatest(id, version)
}

// DeleteAssistant removes every version of an assistant.
func (m *MemoryStore) DeleteAssistant(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.assistants.del(id)
}

// encodeAssistant and decodeAssistant are an assistant's stored form in
// the SQL stores.
func encodeAssistant(a AssistantRecord) ([]byte, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: %w", a.AssistantID, err)
	}
	return data, nil
}

func decodeAssistant(data []byte) (AssistantRecord, error) {
	var a AssistantRecord
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("assistant record: %w", err)
	}
	return a, nil
}
