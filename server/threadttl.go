package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ThreadTTL is a thread's time to live (LangGraph's thread ttl): with
// strategy "delete", the thread and its checkpoints are deleted once
// Minutes have passed since it was last updated (created, patched, or
// ended a run).
type ThreadTTL struct {
	Strategy string  `json:"strategy"`
	Minutes  float64 `json:"ttl"`
}

// TTLStore keeps threads' TTLs. MemoryStore, SQLiteStore and
// PostgresStore implement it; a thread's ttl needs a Store that does.
type TTLStore interface {
	// PutThreadTTL sets a thread's TTL, replacing the one it had.
	PutThreadTTL(ctx context.Context, threadID string, ttl ThreadTTL) error
	// ThreadTTLs returns the TTL of every thread that has one.
	ThreadTTLs(ctx context.Context) (map[string]ThreadTTL, error)
	// DeleteThreadTTL removes a thread's TTL (none: not an error).
	DeleteThreadTTL(ctx context.Context, threadID string) error
}

// parseTTL reads a thread's ttl: {"ttl": minutes, "strategy": "delete"}
// (the strategy defaults to delete), or a number of minutes.
func parseTTL(raw json.RawMessage) (*ThreadTTL, error) {
	if isNull(raw) {
		return nil, nil
	}
	var ttl ThreadTTL
	if json.Unmarshal(raw, &ttl.Minutes) != nil {
		if err := json.Unmarshal(raw, &ttl); err != nil {
			return nil, &InputError{Field: "ttl", Err: errors.New(`want {"ttl": minutes, "strategy": "delete"} or a number of minutes`)}
		}
	}
	if ttl.Strategy == "" {
		ttl.Strategy = "delete"
	}
	if ttl.Strategy != "delete" {
		return nil, &InputError{Field: "ttl.strategy", Err: fmt.Errorf("%q is not supported (supported: delete)", ttl.Strategy)}
	}
	if ttl.Minutes <= 0 {
		return nil, &InputError{Field: "ttl.ttl", Err: fmt.Errorf("%v minutes: want a positive number", ttl.Minutes)}
	}
	return &ttl, nil
}

// setTTL stores a thread's TTL given with a request.
func (s *Server) setTTL(ctx context.Context, threadID string, ttl *ThreadTTL) error {
	if ttl == nil {
		return nil
	}
	ts, ok := s.store.(TTLStore)
	if !ok {
		return &InputError{Field: "ttl", Err: fmt.Errorf("the server's store (%T) keeps no thread TTLs", s.store)}
	}
	return ts.PutThreadTTL(ctx, threadID, *ttl)
}

// SweepThreadTTLs deletes the threads whose TTL has passed at now, with
// their checkpoints and runs, and returns their ids. A thread with a run
// in progress is left for a later sweep. The server sweeps at its cron
// ticks, once a minute (WithCronTicks drives them); call it to sweep at
// another time.
func (s *Server) SweepThreadTTLs(ctx context.Context, now time.Time) ([]string, error) {
	ts, ok := s.store.(TTLStore)
	if !ok {
		return nil, nil
	}
	ttls, err := ts.ThreadTTLs(ctx)
	if err != nil {
		return nil, fmt.Errorf("server: sweep thread TTLs: %w", err)
	}
	var deleted []string
	for id, ttl := range ttls {
		t, err := s.store.GetThread(ctx, id)
		if errors.Is(err, ErrNotFound) {
			err = ts.DeleteThreadTTL(ctx, id) // deleted otherwise
		}
		if err != nil || ttl.Strategy != "delete" {
			if err != nil {
				return deleted, fmt.Errorf("server: sweep thread TTLs: thread %q: %w", id, err)
			}
			continue
		}
		expires := t.UpdatedAt.Add(time.Duration(ttl.Minutes * float64(time.Minute)))
		if t.ThreadID == "" || now.Before(expires) || s.busy(ctx, id) {
			continue
		}
		if err := s.removeThread(ctx, t); err != nil {
			return deleted, fmt.Errorf("server: sweep thread TTLs: delete thread %q: %w", id, err)
		}
		if err := ts.DeleteThreadTTL(ctx, id); err != nil {
			return deleted, fmt.Errorf("server: sweep thread TTLs: thread %q: %w", id, err)
		}
		deleted = append(deleted, id)
	}
	return deleted, nil
}

// sweepTTLsAt sweeps at a cron tick, at most once a minute.
func (s *Server) sweepTTLsAt(now time.Time) {
	if !s.lastTTLSweep.IsZero() && now.Sub(s.lastTTLSweep) < time.Minute {
		return
	}
	s.lastTTLSweep = now
	if _, err := s.SweepThreadTTLs(s.ctx, now); err != nil && s.opts.logf != nil {
		s.opts.logf("%v", err)
	}
}

// memoryTTLs is a MemoryStore's TTLs.
type memoryTTLs struct {
	mu   sync.Mutex
	ttls map[string]ThreadTTL
}

// PutThreadTTL sets a thread's TTL (TTLStore).
func (m *MemoryStore) PutThreadTTL(_ context.Context, threadID string, ttl ThreadTTL) error {
	m.ttl.mu.Lock()
	defer m.ttl.mu.Unlock()
	if m.ttl.ttls == nil {
		m.ttl.ttls = map[string]ThreadTTL{}
	}
	m.ttl.ttls[threadID] = ttl
	return nil
}

// ThreadTTLs returns every thread's TTL.
func (m *MemoryStore) ThreadTTLs(context.Context) (map[string]ThreadTTL, error) {
	m.ttl.mu.Lock()
	defer m.ttl.mu.Unlock()
	out := make(map[string]ThreadTTL, len(m.ttl.ttls))
	for k, v := range m.ttl.ttls {
		out[k] = v
	}
	return out, nil
}

// DeleteThreadTTL removes a thread's TTL.
func (m *MemoryStore) DeleteThreadTTL(_ context.Context, threadID string) error {
	m.ttl.mu.Lock()
	defer m.ttl.mu.Unlock()
	delete(m.ttl.ttls, threadID)
	return nil
}

const sqliteTTLSchema = `
CREATE TABLE IF NOT EXISTS server_thread_ttls (
	thread_id TEXT PRIMARY KEY,
	ttl       TEXT NOT NULL
);
`

// PutThreadTTL sets a thread's TTL (TTLStore).
func (s *SQLiteStore) PutThreadTTL(ctx context.Context, threadID string, ttl ThreadTTL) error {
	data, _ := json.Marshal(ttl)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO server_thread_ttls (thread_id, ttl) VALUES (?, ?)
		ON CONFLICT (thread_id) DO UPDATE SET ttl = excluded.ttl`, threadID, string(data)); err != nil {
		return fmt.Errorf("thread %q: ttl: %w", threadID, err)
	}
	return nil
}

// ThreadTTLs returns every thread's TTL.
func (s *SQLiteStore) ThreadTTLs(ctx context.Context) (map[string]ThreadTTL, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT thread_id, ttl FROM server_thread_ttls`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ThreadTTL{}
	for rows.Next() {
		var id, data string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, err
		}
		var ttl ThreadTTL
		if err := json.Unmarshal([]byte(data), &ttl); err != nil {
			return nil, fmt.Errorf("thread %q: ttl: %w", id, err)
		}
		out[id] = ttl
	}
	return out, rows.Err()
}

// DeleteThreadTTL removes a thread's TTL.
func (s *SQLiteStore) DeleteThreadTTL(ctx context.Context, threadID string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM server_thread_ttls WHERE thread_id = ?`, threadID)
	return err
}

func (s *PostgresStore) ttlTable() string {
	return s.assistantsTable()[:len(s.assistantsTable())-len("stategraph_server_assistants")] + "stategraph_server_thread_ttls"
}

func (s *PostgresStore) createTTLTable(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.ttlTable()+` (thread_id TEXT PRIMARY KEY, ttl JSONB NOT NULL)`)
	return err
}

// PutThreadTTL sets a thread's TTL (TTLStore).
func (s *PostgresStore) PutThreadTTL(ctx context.Context, threadID string, ttl ThreadTTL) error {
	data, _ := json.Marshal(ttl)
	if _, err := s.pool.Exec(ctx, `INSERT INTO `+s.ttlTable()+` (thread_id, ttl) VALUES ($1, $2)
		ON CONFLICT (thread_id) DO UPDATE SET ttl = excluded.ttl`, threadID, data); err != nil {
		return fmt.Errorf("thread %q: ttl: %w", threadID, err)
	}
	return nil
}

// ThreadTTLs returns every thread's TTL.
func (s *PostgresStore) ThreadTTLs(ctx context.Context) (map[string]ThreadTTL, error) {
	rows, err := s.pool.Query(ctx, `SELECT thread_id, ttl FROM `+s.ttlTable())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ThreadTTL{}
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return nil, err
		}
		var ttl ThreadTTL
		if err := json.Unmarshal(data, &ttl); err != nil {
			return nil, fmt.Errorf("thread %q: ttl: %w", id, err)
		}
		out[id] = ttl
	}
	return out, rows.Err()
}

// DeleteThreadTTL removes a thread's TTL.
func (s *PostgresStore) DeleteThreadTTL(ctx context.Context, threadID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM `+s.ttlTable()+` WHERE thread_id = $1`, threadID)
	return err
}
