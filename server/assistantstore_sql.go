package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The SQL stores keep each version of an assistant as a row
// (assistant_id, version, record) with a flag on the latest.

const sqliteAssistantsSchema = `
CREATE TABLE IF NOT EXISTS server_assistants (
	assistant_id TEXT NOT NULL,
	version      INTEGER NOT NULL,
	latest       INTEGER NOT NULL DEFAULT 0,
	record       TEXT NOT NULL,
	PRIMARY KEY (assistant_id, version)
);
`

// PutAssistant stores a new version of an assistant (AssistantStore).
func (s *SQLiteStore) PutAssistant(ctx context.Context, a AssistantRecord) error {
	data, err := encodeAssistant(a)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	res, err := tx.ExecContext(ctx, `INSERT INTO server_assistants (assistant_id, version, latest, record) VALUES (?, ?, 0, ?)
		ON CONFLICT (assistant_id, version) DO NOTHING`, a.AssistantID, a.Version, string(data))
	if err != nil {
		return fmt.Errorf("assistant %q: %w", a.AssistantID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("assistant %q version %d: %w", a.AssistantID, a.Version, ErrExists)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE server_assistants SET latest = (version = ?) WHERE assistant_id = ?`, a.Version, a.AssistantID); err != nil {
		return fmt.Errorf("assistant %q: %w", a.AssistantID, err)
	}
	return tx.Commit()
}

func scanAssistants(rows *sql.Rows, err error) ([]AssistantRecord, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AssistantRecord
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		a, err := decodeAssistant([]byte(data))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Assistants returns the latest version of every assistant.
func (s *SQLiteStore) Assistants(ctx context.Context) ([]AssistantRecord, error) {
	out, err := scanAssistants(s.db.QueryContext(ctx, `SELECT record FROM server_assistants WHERE latest = 1`))
	if err != nil {
		return nil, fmt.Errorf("list assistants: %w", err)
	}
	return out, nil
}

// AssistantVersions returns every version of an assistant, newest first.
func (s *SQLiteStore) AssistantVersions(ctx context.Context, id string) ([]AssistantRecord, error) {
	out, err := scanAssistants(s.db.QueryContext(ctx, `SELECT record FROM server_assistants WHERE assistant_id = ? ORDER BY version DESC`, id))
	if err != nil {
		return nil, fmt.Errorf("assistant %q: %w", id, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return out, nil
}

// SetLatestAssistant makes a stored version the latest.
func (s *SQLiteStore) SetLatestAssistant(ctx context.Context, id string, version int) error {
	res, err := s.db.ExecContext(ctx, `UPDATE server_assistants SET latest = (version = ?)
		WHERE assistant_id = ? AND EXISTS (SELECT 1 FROM server_assistants WHERE assistant_id = ? AND version = ?)`, version, id, id, version)
	if err != nil {
		return fmt.Errorf("assistant %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("assistant %q version %d: %w", id, version, ErrNotFound)
	}
	return nil
}

// DeleteAssistant removes every version of an assistant.
func (s *SQLiteStore) DeleteAssistant(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM server_assistants WHERE assistant_id = ?`, id)
	if err != nil {
		return fmt.Errorf("assistant %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return nil
}

// assistantsTable is the PostgresStore's table of assistants.
func (s *PostgresStore) assistantsTable() string {
	return strings.TrimSuffix(s.threads, "stategraph_server_threads") + "stategraph_server_assistants"
}

func (s *PostgresStore) createAssistantsTable(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.assistantsTable()+` (
	assistant_id TEXT NOT NULL,
	version      INTEGER NOT NULL,
	latest       BOOLEAN NOT NULL DEFAULT false,
	record       JSONB NOT NULL,
	PRIMARY KEY (assistant_id, version)
)`)
	return err
}

// PutAssistant stores a new version of an assistant (AssistantStore).
func (s *PostgresStore) PutAssistant(ctx context.Context, a AssistantRecord) error {
	data, err := encodeAssistant(a)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO `+s.assistantsTable()+` (assistant_id, version, latest, record) VALUES ($1, $2, false, $3)
			ON CONFLICT (assistant_id, version) DO NOTHING`, a.AssistantID, a.Version, data)
		if err != nil {
			return fmt.Errorf("assistant %q: %w", a.AssistantID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("assistant %q version %d: %w", a.AssistantID, a.Version, ErrExists)
		}
		if _, err := tx.Exec(ctx, `UPDATE `+s.assistantsTable()+` SET latest = (version = $1) WHERE assistant_id = $2`, a.Version, a.AssistantID); err != nil {
			return fmt.Errorf("assistant %q: %w", a.AssistantID, err)
		}
		return nil
	})
}

func (s *PostgresStore) queryAssistants(ctx context.Context, query string, args ...any) ([]AssistantRecord, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AssistantRecord
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		a, err := decodeAssistant(data)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Assistants returns the latest version of every assistant.
func (s *PostgresStore) Assistants(ctx context.Context) ([]AssistantRecord, error) {
	out, err := s.queryAssistants(ctx, `SELECT record FROM `+s.assistantsTable()+` WHERE latest`)
	if err != nil {
		return nil, fmt.Errorf("list assistants: %w", err)
	}
	return out, nil
}

// AssistantVersions returns every version of an assistant, newest first.
func (s *PostgresStore) AssistantVersions(ctx context.Context, id string) ([]AssistantRecord, error) {
	out, err := s.queryAssistants(ctx, `SELECT record FROM `+s.assistantsTable()+` WHERE assistant_id = $1 ORDER BY version DESC`, id)
	if err != nil {
		return nil, fmt.Errorf("assistant %q: %w", id, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return out, nil
}

// SetLatestAssistant makes a stored version the latest.
func (s *PostgresStore) SetLatestAssistant(ctx context.Context, id string, version int) error {
	tag, err := s.pool.Exec(ctx, `UPDATE `+s.assistantsTable()+` SET latest = (version = $1)
		WHERE assistant_id = $2 AND EXISTS (SELECT 1 FROM `+s.assistantsTable()+` WHERE assistant_id = $2 AND version = $1)`, version, id)
	if err != nil {
		return fmt.Errorf("assistant %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("assistant %q version %d: %w", id, version, ErrNotFound)
	}
	return nil
}

// DeleteAssistant removes every version of an assistant.
func (s *PostgresStore) DeleteAssistant(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+s.assistantsTable()+` WHERE assistant_id = $1`, id)
	if err != nil {
		return fmt.Errorf("assistant %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("assistant %q: %w", id, ErrNotFound)
	}
	return nil
}
