package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stategraph/stategraph/checkpoint"
)

// PostgreSQL error codes this package tells apart.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)

// Put stores the checkpoint and its new blobs as a compare-and-set on the
// head of (thread, namespace), all in one statement: one round trip and
// one commit. The head lives in stategraph_heads; the statement moves it
// only if it still is req.ExpectHead, so the check holds across processes
// and machines. On a mismatch nothing is stored and the error wraps
// checkpoint.ErrConflict.
func (s *Saver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	cfg := req.Config
	cp := req.Checkpoint
	if cp.ID == "" {
		return checkpoint.Config{}, fmt.Errorf("postgres: put on thread %q ns %q: empty checkpoint id", cfg.ThreadID, cfg.Namespace)
	}
	versions, err := json.Marshal(cp.Versions)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q: versions: %w", cp.ID, cfg.ThreadID, err)
	}
	md, err := json.Marshal(req.Metadata)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q: metadata: %w", cp.ID, cfg.ThreadID, err)
	}
	filter, err := json.Marshal(req.Metadata.Flatten())
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q: metadata: %w", cp.ID, cfg.ThreadID, err)
	}

	// The new blobs, in channel order so that equal requests make equal
	// statements.
	channels := make([]string, 0, len(cp.New))
	for ch := range cp.New {
		channels = append(channels, ch)
	}
	slices.Sort(channels)
	vers := make([]string, len(channels))
	data := make([][]byte, len(channels))
	delta := make([]bool, len(channels))
	base := make([]string, len(channels))
	for i, ch := range channels {
		b := cp.New[ch]
		if b.Delta && b.Base == "" {
			return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q: channel %q version %q is a delta without a base", cp.ID, cfg.ThreadID, ch, b.Version)
		}
		vers[i], data[i], delta[i], base[i] = b.Version, b.Data, b.Delta, b.Base
	}

	var parent *string
	if cfg.CheckpointID != "" {
		parent = &cfg.CheckpointID
	}
	sql := s.q.putNext
	if req.ExpectHead == "" {
		sql = s.q.putFirst
	}
	var ok bool
	err = s.pool.QueryRow(ctx, sql,
		cfg.ThreadID, cfg.Namespace, cp.ID, parent, cp.CreatedAt,
		string(versions), string(md), string(filter), req.ExpectHead,
		channels, vers, data, delta, base,
	).Scan(&ok)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation:
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: checkpoint already stored: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, checkpoint.ErrConflict)
	case err != nil:
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	case !ok:
		return checkpoint.Config{}, s.conflict(ctx, cfg, req.ExpectHead)
	}
	return checkpoint.Config{ThreadID: cfg.ThreadID, Namespace: cfg.Namespace, CheckpointID: cp.ID}, nil
}

// conflict builds the error of a failed compare-and-set, naming the head
// the thread has now.
func (s *Saver) conflict(ctx context.Context, cfg checkpoint.Config, expected string) error {
	var actual string
	err := s.pool.QueryRow(ctx, s.q.head, cfg.ThreadID, cfg.Namespace).Scan(&actual)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		actual = ""
	case err != nil:
		return fmt.Errorf("postgres: put on thread %q ns %q: expected head %q, then reading the head: %v: %w",
			cfg.ThreadID, cfg.Namespace, expected, err, checkpoint.ErrConflict)
	}
	return fmt.Errorf("postgres: put on thread %q ns %q: expected head %q, actual head %q: %w",
		cfg.ThreadID, cfg.Namespace, expected, actual, checkpoint.ErrConflict)
}

// PutWrites stores a task's writes against the checkpoint cfg names, in
// one statement. A write with a non-negative Index is kept if one with the
// same (task, index) is stored already; one with a negative Index replaces
// it. A missing checkpoint is checkpoint.ErrNotFound.
func (s *Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) error {
	if cfg.CheckpointID == "" {
		return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: no checkpoint id: %w",
			taskID, cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
	}
	if len(writes) == 0 {
		var ok bool
		err := s.pool.QueryRow(ctx, s.q.exists, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID).Scan(&ok)
		if err != nil {
			return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.CheckpointID, err)
		}
		if !ok {
			return s.writesNotFound(cfg, taskID)
		}
		return nil
	}

	// One row per index: the first of a non-negative index, the last of a
	// negative one, as if the writes were stored one by one.
	seen := make(map[int]int, len(writes))
	idx := make([]int32, 0, len(writes))
	channels := make([]string, 0, len(writes))
	values := make([][]byte, 0, len(writes))
	for _, w := range writes {
		if w.Index < math.MinInt32 || w.Index > math.MaxInt32 {
			return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: index %d out of range",
				taskID, cfg.ThreadID, cfg.CheckpointID, w.Index)
		}
		if i, dup := seen[w.Index]; dup {
			if w.Index < 0 {
				channels[i], values[i] = w.Channel, w.Value
			}
			continue
		}
		seen[w.Index] = len(idx)
		idx = append(idx, int32(w.Index))
		channels = append(channels, w.Channel)
		values = append(values, w.Value)
	}
	_, err := s.pool.Exec(ctx, s.q.putWrites, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, idx, channels, values)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == codeForeignKeyViolation:
		return s.writesNotFound(cfg, taskID)
	case err != nil:
		return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.CheckpointID, err)
	}
	return nil
}

func (s *Saver) writesNotFound(cfg checkpoint.Config, taskID string) error {
	return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: checkpoint %q: %w",
		taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
}
