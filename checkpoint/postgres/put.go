package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint"
)

// PostgreSQL error codes this package tells apart.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	// codeProgramLimitExceeded is raised, among others, for a key too
	// long for a btree index entry.
	codeProgramLimitExceeded = "54000"
)

// ErrLimit is wrapped by the error of a Put or PutWrites given data that
// PostgreSQL cannot store: a thread id, namespace, checkpoint or task id,
// channel name, version or metadata string that contains U+0000 or is not
// valid UTF-8 (text and jsonb cannot hold it; the error names the field),
// or keys too long for an index entry (a btree entry holds about 2.7 kB
// after compression: thread id and namespace, with the checkpoint id,
// channel name and version, or task id). Nothing is stored.
var ErrLimit = errors.New("postgres: beyond PostgreSQL's limits")

// hasNUL reports whether the JSON text b holds an escaped U+0000 (\u0000
// not preceded by another backslash).
func hasNUL(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`\u0000`))
		if j < 0 {
			return false
		}
		j += i
		n := 0
		for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
		i = j + 1
	}
}

// nulField names the part of md that holds U+0000, for an error.
func nulField(md checkpoint.Metadata) string {
	switch {
	case strings.ContainsRune(string(md.Source), 0):
		return "metadata source"
	case strings.ContainsRune(md.RunID, 0):
		return "metadata run id"
	case slices.ContainsFunc(md.Nodes, func(n string) bool { return strings.ContainsRune(n, 0) }):
		return "metadata nodes"
	}
	for k, v := range md.Parents {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
			return "metadata parents"
		}
	}
	for k, v := range md.Extra {
		if strings.ContainsRune(k, 0) {
			return fmt.Sprintf("metadata key %q", k)
		}
		if b, err := json.Marshal(v); err == nil && hasNUL(b) {
			return fmt.Sprintf("metadata value of %q", k)
		}
	}
	return "metadata"
}

// Put stores the checkpoint and its new blobs as a compare-and-set on the
// head of (thread, namespace), all in one statement: one round trip and
// one commit. The head lives in stategraph_heads; the statement moves it
// only if it still is req.ExpectHead, so the check holds across processes
// and machines. On a mismatch nothing is stored and the error wraps
// checkpoint.ErrConflict. A new blob without a Version is stored under the
// checkpoint's version of its channel; one with neither is refused.
//
// Put settles before it returns: once the statement is sent, cancelling
// ctx (or the write timeout passing, see WithWriteTimeout) asks the
// database to cancel it and waits for the answer. So a Put that returns
// an error stored nothing, and one that stored its checkpoint returns nil
// even if ctx was cancelled meanwhile; an error that ctx caused wraps
// ctx's error. Only a database that does not answer at all leaves the
// outcome unknown.
//
// Metadata, versions and channel names that contain U+0000 (which jsonb
// cannot hold), and keys too long for PostgreSQL's index entries, are
// refused with an error wrapping ErrLimit; nothing is stored.
func (s *Saver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	cfg := req.Config
	cp := req.Checkpoint
	if cp.ID == "" {
		return checkpoint.Config{}, fmt.Errorf("postgres: put on thread %q ns %q: empty checkpoint id", cfg.ThreadID, cfg.Namespace)
	}
	fail := func(format string, a ...any) (checkpoint.Config, error) {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: %s", cp.ID, cfg.ThreadID, cfg.Namespace, fmt.Sprintf(format, a...))
	}
	if err := checkPutText(req); err != nil {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %q on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	}
	versions, err := json.Marshal(cp.Versions)
	if err != nil {
		return fail("versions: %v", err)
	}
	if cp.Versions == nil {
		versions = []byte("{}")
	}
	if hasNUL(versions) {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: a channel name or version contains U+0000: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, ErrLimit)
	}
	md, err := json.Marshal(req.Metadata)
	if err != nil {
		return fail("metadata: %v", err)
	}
	if hasNUL(md) {
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: %s contains U+0000: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, nulField(req.Metadata), ErrLimit)
	}
	filter, err := json.Marshal(req.Metadata.Flatten())
	if err != nil {
		return fail("metadata: %v", err)
	}
	canon := md
	if !plainMetadata(md) {
		if canon, err = canonicalMetadata(md); err != nil {
			return fail("metadata: %v", err)
		}
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
	sums := make([]int64, len(channels))
	for i, ch := range channels {
		b := cp.New[ch]
		v := b.Version
		if v == "" {
			v = cp.Versions[ch]
		}
		if v == "" {
			return fail("the blob of channel %q has no version, and the checkpoint none for the channel", ch)
		}
		if strings.ContainsRune(ch, 0) || strings.ContainsRune(v, 0) || strings.ContainsRune(b.Base, 0) {
			return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: the channel name, version or base of a blob contains U+0000: %w",
				cp.ID, cfg.ThreadID, cfg.Namespace, ErrLimit)
		}
		vers[i], data[i], delta[i], base[i] = v, b.Data, b.Delta, b.Base
		sums[i] = blobChecksum(cfg.ThreadID, cfg.Namespace, ch, v, b.Data, b.Delta, b.Base)
	}
	crc := cpChecksum(cfg.ThreadID, cfg.Namespace, cp.ID, cfg.CheckpointID, cp.CreatedAt, cp.Versions, canon, req.ExpectHead)

	var parent *string
	if cfg.CheckpointID != "" {
		parent = &cfg.CheckpointID
	}
	sql := s.q.putNext
	if req.ExpectHead == "" {
		sql = s.q.putFirst
	}
	var ok bool
	var conflict error
	fence := s.fenceOf(ctx, cfg.ThreadID)
	err = s.settled(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		err := conn.QueryRow(ctx, sql,
			cfg.ThreadID, cfg.Namespace, cp.ID, parent, cp.CreatedAt,
			string(versions), string(md), string(filter), req.ExpectHead,
			channels, vers, data, delta, base, crc, sums, fence.fenceToken(),
		).Scan(&ok)
		if err == nil && !ok {
			if conflict = s.fenceLost(ctx, conn, fence); conflict != nil {
				conflict = fmt.Errorf("postgres: put %s on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, conflict)
				return nil
			}
			conflict = s.conflict(ctx, conn, cfg, cp.ID, req.ExpectHead)
		}
		return err
	})
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation:
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: checkpoint already stored: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, checkpoint.ErrConflict)
	case errors.As(err, &pgErr) && pgErr.Code == codeProgramLimitExceeded:
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: thread id (%d bytes), namespace (%d bytes), checkpoint id or a channel name and version too long for an index entry: %v: %w",
			cp.ID, cfg.ThreadID, cfg.Namespace, len(cfg.ThreadID), len(cfg.Namespace), err, ErrLimit)
	case err != nil:
		return checkpoint.Config{}, fmt.Errorf("postgres: put %s on thread %q ns %q: %w", cp.ID, cfg.ThreadID, cfg.Namespace, err)
	case !ok:
		return checkpoint.Config{}, conflict
	}
	return checkpoint.Config{ThreadID: cfg.ThreadID, Namespace: cfg.Namespace, CheckpointID: cp.ID}, nil
}

// conflict builds the error of a failed compare-and-set, naming the head
// the thread has now.
func (s *Saver) conflict(ctx context.Context, conn *pgxpool.Conn, cfg checkpoint.Config, id, expected string) error {
	var actual string
	err := conn.QueryRow(ctx, s.q.head, cfg.ThreadID, cfg.Namespace).Scan(&actual)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		actual = ""
	case err != nil:
		return fmt.Errorf("postgres: put on thread %q ns %q: expected head %q, then reading the head: %v: %w",
			cfg.ThreadID, cfg.Namespace, expected, err, checkpoint.ErrConflict)
	}
	if actual == expected {
		return fmt.Errorf("postgres: put on thread %q ns %q: checkpoint id %q does not sort after the head %q: %w",
			cfg.ThreadID, cfg.Namespace, id, actual, checkpoint.ErrConflict)
	}
	return fmt.Errorf("postgres: put on thread %q ns %q: expected head %q, actual head %q: %w",
		cfg.ThreadID, cfg.Namespace, expected, actual, checkpoint.ErrConflict)
}

// PutWrites stores a task's writes against the checkpoint cfg names, in
// one statement. A write with a non-negative Index is kept if one with the
// same (task, index) is stored already; one with a negative Index replaces
// it. A missing checkpoint, or an empty cfg.CheckpointID, is
// checkpoint.ErrNotFound.
//
// Like Put, PutWrites settles before it returns: a call that returns an
// error stored none of its writes, and one that stored them returns nil,
// even if ctx was cancelled while the statement ran.
func (s *Saver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) error {
	if cfg.CheckpointID == "" {
		return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: no checkpoint id: %w",
			taskID, cfg.ThreadID, cfg.Namespace, checkpoint.ErrNotFound)
	}
	if err := checkText(field{"thread id", cfg.ThreadID}, field{"namespace", cfg.Namespace}, field{"checkpoint id", cfg.CheckpointID}, field{"task id", taskID}); err != nil {
		return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: %w", taskID, cfg.ThreadID, cfg.Namespace, err)
	}
	for _, w := range writes {
		if err := checkText(field{"channel of a write", w.Channel}); err != nil {
			return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: %w", taskID, cfg.ThreadID, cfg.Namespace, err)
		}
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
	sums := make([]int64, 0, len(writes))
	for _, w := range writes {
		if w.Index < math.MinInt32 || w.Index > math.MaxInt32 {
			return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: index %d out of range",
				taskID, cfg.ThreadID, cfg.CheckpointID, w.Index)
		}
		if i, dup := seen[w.Index]; dup {
			if w.Index < 0 {
				channels[i], values[i] = w.Channel, w.Value
				sums[i] = writeChecksum(cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, int32(w.Index), w.Channel, w.Value)
			}
			continue
		}
		seen[w.Index] = len(idx)
		idx = append(idx, int32(w.Index))
		channels = append(channels, w.Channel)
		values = append(values, w.Value)
		sums = append(sums, writeChecksum(cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, int32(w.Index), w.Channel, w.Value))
	}
	fence := s.fenceOf(ctx, cfg.ThreadID)
	var lost error
	err := s.settled(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		tag, err := conn.Exec(ctx, s.q.putWrites, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, taskID, idx, channels, values, sums, fence.fenceToken())
		if err == nil && tag.RowsAffected() == 0 && fence != nil {
			lost, err = s.fenceLost(ctx, conn, fence), nil
		}
		return err
	})
	if lost != nil {
		return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.CheckpointID, lost)
	}
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == codeForeignKeyViolation:
		return s.writesNotFound(cfg, taskID)
	case errors.As(err, &pgErr) && pgErr.Code == codeProgramLimitExceeded:
		return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: thread id (%d bytes), namespace (%d bytes), checkpoint id and task id (%d bytes) too long for an index entry: %v: %w",
			taskID, cfg.ThreadID, cfg.CheckpointID, len(cfg.ThreadID), len(cfg.Namespace), len(taskID), err, ErrLimit)
	case err != nil:
		return fmt.Errorf("postgres: put writes of task %q on thread %q checkpoint %s: %w", taskID, cfg.ThreadID, cfg.CheckpointID, err)
	}
	return nil
}

func (s *Saver) writesNotFound(cfg checkpoint.Config, taskID string) error {
	return fmt.Errorf("postgres: put writes of task %q on thread %q ns %q: checkpoint %q: %w",
		taskID, cfg.ThreadID, cfg.Namespace, cfg.CheckpointID, checkpoint.ErrNotFound)
}
