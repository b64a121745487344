package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// SQLiteStore keeps thread and run records in a SQLite file (WAL): the
// embedded default. It is a file of its own, beside the checkpoint file
// (checkpoint/sqlite keeps its file to itself).
type SQLiteStore struct {
	db *sql.DB
}

const sqliteStoreSchema = `
CREATE TABLE IF NOT EXISTS server_threads (
	thread_id  TEXT PRIMARY KEY,
	graph_id   TEXT NOT NULL DEFAULT '',
	metadata   TEXT NOT NULL DEFAULT '{}',
	status     TEXT NOT NULL,
	error      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS server_runs (
	thread_id  TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	record     TEXT NOT NULL,
	status     TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (thread_id, run_id)
);
CREATE INDEX IF NOT EXISTS server_runs_by_time ON server_runs (thread_id, created_at);
`

// OpenSQLiteStore opens (creating it if needed) the SQLite store at path.
// Close it when done.
func OpenSQLiteStore(path string) (*SQLiteStore, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("server: open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sqliteStoreSchema + sqliteAssistantsSchema + sqliteTTLSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("server: create store tables in %s: %w", path, err)
	}
	return &SQLiteStore{db: db}, nil
}

// Close closes the database.
func (s *SQLiteStore) Close() error { return s.db.Close() }

func encodeMetadata(md map[string]any) (string, error) {
	if md == nil {
		md = map[string]any{}
	}
	data, err := json.Marshal(md)
	return string(data), err
}

// CreateThread stores a new thread; ErrExists when its id is taken.
func (s *SQLiteStore) CreateThread(ctx context.Context, t ThreadRecord) error {
	md, err := encodeMetadata(t.Metadata)
	if err != nil {
		return fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO server_threads (thread_id, graph_id, metadata, status, error, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING`,
		t.ThreadID, t.GraphID, md, t.Status, t.Error, t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("thread %q: %w", t.ThreadID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("thread %q: %w", t.ThreadID, ErrExists)
	}
	return nil
}

// PutThread stores a thread, replacing the record of its id.
func (s *SQLiteStore) PutThread(ctx context.Context, t ThreadRecord) error {
	md, err := encodeMetadata(t.Metadata)
	if err != nil {
		return fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO server_threads (thread_id, graph_id, metadata, status, error, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE SET graph_id = excluded.graph_id,
		metadata = excluded.metadata, status = excluded.status, error = excluded.error, updated_at = excluded.updated_at`,
		t.ThreadID, t.GraphID, md, t.Status, t.Error, t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("thread %q: %w", t.ThreadID, err)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scanThread(r scanner) (ThreadRecord, error) {
	var t ThreadRecord
	var md string
	var created, updated int64
	if err := r.Scan(&t.ThreadID, &t.GraphID, &md, &t.Status, &t.Error, &created, &updated); err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	if err := json.Unmarshal([]byte(md), &t.Metadata); err != nil {
		return t, fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	return t, nil
}

const threadColumns = `thread_id, graph_id, metadata, status, error, created_at, updated_at`

// GetThread returns a thread; ErrNotFound when there is none.
func (s *SQLiteStore) GetThread(ctx context.Context, id string) (ThreadRecord, error) {
	t, err := scanThread(s.db.QueryRowContext(ctx, `SELECT `+threadColumns+` FROM server_threads WHERE thread_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	return t, err
}

// DeleteThread removes a thread and its runs.
func (s *SQLiteStore) DeleteThread(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM server_threads WHERE thread_id = ?`, id)
	if err != nil {
		return fmt.Errorf("thread %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	_, err = s.db.ExecContext(ctx, `DELETE FROM server_runs WHERE thread_id = ?`, id)
	return err
}

// SearchThreads returns the threads the query selects. Status is matched
// in SQL; metadata is matched on the rows read.
func (s *SQLiteStore) SearchThreads(ctx context.Context, q ThreadQuery) ([]ThreadRecord, error) {
	query, args := `SELECT `+threadColumns+` FROM server_threads`, []any{}
	if q.Status != "" {
		query += ` WHERE status = ?`
		args = append(args, q.Status)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search threads: %w", err)
	}
	defer rows.Close()
	var all []ThreadRecord
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, err
		}
		all = append(all, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return selectThreads(all, q), nil
}

// PutRun stores a run, replacing the record of its id.
func (s *SQLiteStore) PutRun(ctx context.Context, r RunRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("run %q: %w", r.RunID, err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO server_runs (thread_id, run_id, record, status, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (thread_id, run_id) DO UPDATE SET record = excluded.record, status = excluded.status`,
		r.ThreadID, r.RunID, string(data), r.Status, r.CreatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("run %q of thread %q: %w", r.RunID, r.ThreadID, err)
	}
	return nil
}

func decodeRun(data string) (RunRecord, error) {
	var r RunRecord
	err := json.Unmarshal([]byte(data), &r)
	return r, err
}

// GetRun returns a run of a thread; ErrNotFound when there is none.
func (s *SQLiteStore) GetRun(ctx context.Context, threadID, runID string) (RunRecord, error) {
	var data string
	err := s.db.QueryRowContext(ctx, `SELECT record FROM server_runs WHERE thread_id = ? AND run_id = ?`, threadID, runID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return RunRecord{}, fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	if err != nil {
		return RunRecord{}, err
	}
	return decodeRun(data)
}

// ListRuns lists a thread's runs, newest first.
func (s *SQLiteStore) ListRuns(ctx context.Context, threadID, status string, limit, offset int) ([]RunRecord, error) {
	if limit <= 0 {
		limit = -1
	}
	query, args := `SELECT record FROM server_runs WHERE thread_id = ?`, []any{threadID}
	if status != "" {
		query += ` AND status = ?`
		args = append(args, status)
	}
	query += ` ORDER BY created_at DESC, run_id DESC LIMIT ? OFFSET ?`
	args = append(args, limit, max(offset, 0))
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs of thread %q: %w", threadID, err)
	}
	defer rows.Close()
	var out []RunRecord
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		r, err := decodeRun(data)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRun removes a run.
func (s *SQLiteStore) DeleteRun(ctx context.Context, threadID, runID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM server_runs WHERE thread_id = ? AND run_id = ?`, threadID, runID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	return nil
}
