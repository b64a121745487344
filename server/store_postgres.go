package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresStore keeps thread and run records in PostgreSQL, beside
// checkpoint/postgres's tables, for a server whose checkpoints are there.
// With WithWorkers, it also keeps the runs' events, and the runs execute
// as River jobs of package worker in any process on the database.
type PostgresStore struct {
	pool    *pgxpool.Pool
	schema  string
	threads string // qualified table names
	runs    string
	events  string
	crons   string
}

// execer is what a pool and a transaction share.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// OpenPostgresStore creates the store's tables if needed, in schema (""
// for the search path; the schema is created if missing), and returns the
// store. The pool stays the caller's to close.
func OpenPostgresStore(ctx context.Context, pool *pgxpool.Pool, schema string) (*PostgresStore, error) {
	prefix := ""
	if schema != "" {
		prefix = pgx.Identifier{schema}.Sanitize() + "."
		if _, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return nil, fmt.Errorf("server: create schema %s: %w", schema, err)
		}
	}
	s := &PostgresStore{pool: pool, schema: schema, threads: prefix + "stategraph_server_threads", runs: prefix + "stategraph_server_runs",
		events: prefix + "stategraph_server_events", crons: prefix + "stategraph_server_crons"}
	_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.threads+` (
	thread_id  TEXT PRIMARY KEY,
	graph_id   TEXT NOT NULL DEFAULT '',
	metadata   JSONB NOT NULL DEFAULT '{}',
	status     TEXT NOT NULL,
	error      TEXT NOT NULL DEFAULT '',
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS `+s.runs+` (
	thread_id  TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	record     JSONB NOT NULL,
	status     TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (thread_id, run_id)
);
CREATE TABLE IF NOT EXISTS `+s.events+` (
	run_id    TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	thread_id TEXT NOT NULL,
	event     TEXT NOT NULL,
	data      TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS `+pgx.Identifier{"stategraph_server_events_thread"}.Sanitize()+` ON `+s.events+` (thread_id);
CREATE TABLE IF NOT EXISTS `+s.crons+` (
	cron_id    TEXT PRIMARY KEY,
	record     JSONB NOT NULL,
	next_run   TIMESTAMPTZ,
	created_at TIMESTAMPTZ NOT NULL
)`)
	if err == nil {
		err = s.createAssistantsTable(ctx)
	}
	if err == nil {
		err = s.createTTLTable(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("server: create store tables: %w", err)
	}
	return s, nil
}

func metadataJSONB(md map[string]any) ([]byte, error) {
	if md == nil {
		md = map[string]any{}
	}
	return json.Marshal(md)
}

// CreateThread stores a new thread; ErrExists when its id is taken.
func (s *PostgresStore) CreateThread(ctx context.Context, t ThreadRecord) error {
	md, err := metadataJSONB(t.Metadata)
	if err != nil {
		return fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO `+s.threads+` (thread_id, graph_id, metadata, status, error, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (thread_id) DO NOTHING`,
		t.ThreadID, t.GraphID, md, t.Status, t.Error, t.CreatedAt, t.UpdatedAt)
	if err != nil {
		return fmt.Errorf("thread %q: %w", t.ThreadID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("thread %q: %w", t.ThreadID, ErrExists)
	}
	return nil
}

// PutThread stores a thread, replacing the record of its id.
func (s *PostgresStore) PutThread(ctx context.Context, t ThreadRecord) error {
	return s.putThread(ctx, s.pool, t)
}

func (s *PostgresStore) putThread(ctx context.Context, db execer, t ThreadRecord) error {
	md, err := metadataJSONB(t.Metadata)
	if err != nil {
		return fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	_, err = db.Exec(ctx, `INSERT INTO `+s.threads+` (thread_id, graph_id, metadata, status, error, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (thread_id) DO UPDATE SET graph_id = excluded.graph_id,
		metadata = excluded.metadata, status = excluded.status, error = excluded.error, updated_at = excluded.updated_at`,
		t.ThreadID, t.GraphID, md, t.Status, t.Error, t.CreatedAt, t.UpdatedAt)
	if err != nil {
		return fmt.Errorf("thread %q: %w", t.ThreadID, err)
	}
	return nil
}

func scanPGThread(r pgx.Row) (ThreadRecord, error) {
	var t ThreadRecord
	var md []byte
	if err := r.Scan(&t.ThreadID, &t.GraphID, &md, &t.Status, &t.Error, &t.CreatedAt, &t.UpdatedAt); err != nil {
		return t, err
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	if err := json.Unmarshal(md, &t.Metadata); err != nil {
		return t, fmt.Errorf("thread %q: metadata: %w", t.ThreadID, err)
	}
	return t, nil
}

// GetThread returns a thread; ErrNotFound when there is none.
func (s *PostgresStore) GetThread(ctx context.Context, id string) (ThreadRecord, error) {
	t, err := scanPGThread(s.pool.QueryRow(ctx, `SELECT `+threadColumns+` FROM `+s.threads+` WHERE thread_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	return t, err
}

// DeleteThread removes a thread and its runs.
func (s *PostgresStore) DeleteThread(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+s.threads+` WHERE thread_id = $1`, id)
	if err != nil {
		return fmt.Errorf("thread %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	if _, err = s.pool.Exec(ctx, `DELETE FROM `+s.runs+` WHERE thread_id = $1`, id); err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `DELETE FROM `+s.events+` WHERE thread_id = $1`, id)
	return err
}

// deleteThreadRecords removes a thread and its runs, and keeps their
// events (for the streams still reading a stateless run's).
func (s *PostgresStore) deleteThreadRecords(ctx context.Context, db execer, id string) error {
	if _, err := db.Exec(ctx, `DELETE FROM `+s.threads+` WHERE thread_id = $1`, id); err != nil {
		return err
	}
	_, err := db.Exec(ctx, `DELETE FROM `+s.runs+` WHERE thread_id = $1`, id)
	return err
}

// getThread reads a thread in tx, locking its row when forUpdate.
func (s *PostgresStore) getThread(ctx context.Context, tx pgx.Tx, id string, forUpdate bool) (ThreadRecord, error) {
	q := `SELECT ` + threadColumns + ` FROM ` + s.threads + ` WHERE thread_id = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	t, err := scanPGThread(tx.QueryRow(ctx, q, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	return t, err
}

// SearchThreads returns the threads the query selects; metadata and status
// are matched in SQL (metadata with jsonb containment).
func (s *PostgresStore) SearchThreads(ctx context.Context, q ThreadQuery) ([]ThreadRecord, error) {
	md, err := metadataJSONB(q.Metadata)
	if err != nil {
		return nil, &InputError{Field: "metadata", Err: err}
	}
	rows, err := s.pool.Query(ctx, `SELECT `+threadColumns+` FROM `+s.threads+`
		WHERE metadata @> $1::jsonb AND ($2 = '' OR status = $2)`, md, q.Status)
	if err != nil {
		return nil, fmt.Errorf("search threads: %w", err)
	}
	defer rows.Close()
	var all []ThreadRecord
	for rows.Next() {
		t, err := scanPGThread(rows)
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
func (s *PostgresStore) PutRun(ctx context.Context, r RunRecord) error {
	return s.putRun(ctx, s.pool, r)
}

func (s *PostgresStore) putRun(ctx context.Context, db execer, r RunRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("run %q: %w", r.RunID, err)
	}
	_, err = db.Exec(ctx, `INSERT INTO `+s.runs+` (thread_id, run_id, record, status, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (thread_id, run_id) DO UPDATE SET record = excluded.record, status = excluded.status`,
		r.ThreadID, r.RunID, data, r.Status, r.CreatedAt)
	if err != nil {
		return fmt.Errorf("run %q of thread %q: %w", r.RunID, r.ThreadID, err)
	}
	return nil
}

// GetRun returns a run of a thread; ErrNotFound when there is none.
func (s *PostgresStore) GetRun(ctx context.Context, threadID, runID string) (RunRecord, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT record FROM `+s.runs+` WHERE thread_id = $1 AND run_id = $2`, threadID, runID).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return RunRecord{}, fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	if err != nil {
		return RunRecord{}, err
	}
	return decodeRun(string(data))
}

// ListRuns lists a thread's runs, newest first.
func (s *PostgresStore) ListRuns(ctx context.Context, threadID, status string, limit, offset int) ([]RunRecord, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT record FROM `+s.runs+` WHERE thread_id = $1 AND ($2 = '' OR status = $2)
		ORDER BY created_at DESC, run_id DESC LIMIT $3 OFFSET $4`, threadID, status, lim, max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("list runs of thread %q: %w", threadID, err)
	}
	defer rows.Close()
	var out []RunRecord
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		r, err := decodeRun(string(data))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRun removes a run.
func (s *PostgresStore) DeleteRun(ctx context.Context, threadID, runID string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+s.runs+` WHERE thread_id = $1 AND run_id = $2`, threadID, runID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("run %q of thread %q: %w", runID, threadID, ErrNotFound)
	}
	_, err = s.pool.Exec(ctx, `DELETE FROM `+s.events+` WHERE run_id = $1`, runID)
	return err
}
