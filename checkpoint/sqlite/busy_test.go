package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// holdWriteLock takes the write lock of the database at path on a
// connection of another handle and returns it: ROLLBACK on it lets go.
func holdWriteLock(t *testing.T, path string) *sql.Conn {
	t.Helper()
	conn, err := rawDB(t, path).Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	require.NoError(t, err)
	return conn
}

// TestWaitForTheWriteLockEndsWithTheContext: while another handle holds
// the write lock, a Put and a PutWrites wait for it no longer than their
// context allows, however long the busy timeout, and return the context's
// error; once the lock is free, they go through, and a wait that the lock
// ends in time succeeds.
func TestWaitForTheWriteLockEndsWithTheContext(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := sqlite.Open(path, sqlite.WithBusyTimeout(10*time.Second))
	require.NoError(t, err)
	defer s.Close()
	head := put(t, s, "t", "", nil, nil, checkpoint.Metadata{})

	conn := holdWriteLock(t, path)

	for _, op := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"Put", func(ctx context.Context) error {
			_, err := s.Put(ctx, checkpoint.PutRequest{Config: checkpoint.Config{ThreadID: "u"}, Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()}})
			return err
		}},
		{"PutWrites", func(ctx context.Context) error {
			return s.PutWrites(ctx, checkpoint.Config{ThreadID: "t", CheckpointID: head}, "task",
				[]checkpoint.PendingWrite{{Channel: "c", Value: []byte(`1`)}})
		}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		err := op.run(ctx)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, op.name)
		require.Less(t, time.Since(start), 5*time.Second, "%s waits for its context, not the busy timeout", op.name)
	}

	// The holder lets go while a Put waits: the Put goes through.
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(context.Background(), checkpoint.PutRequest{Config: checkpoint.Config{ThreadID: "v"}, Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()}})
		done <- err
	}()
	_, err = conn.ExecContext(context.Background(), "ROLLBACK")
	require.NoError(t, err)
	require.NoError(t, <-done)
	put(t, s, "w", "", nil, nil, checkpoint.Metadata{})
}
