package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// TestAWriterRacingADeleteOfItsThreadConflicts pins the order
// DeleteStaleThreads keeps with a Put: while the delete holds the head
// rows, a Put on the thread waits (the test sees it waiting on a lock in
// pg_stat_activity); once the delete commits, the Put fails with
// checkpoint.ErrConflict and stores nothing, rather than a checkpoint in
// a deleted thread.
func TestAWriterRacingADeleteOfItsThreadConflicts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a regression, not a synchronisation
	defer cancel()
	schema := pgtest.Schema(t)
	s := New(pgtest.Pool(t, nil), WithSchema(schema))
	require.NoError(t, s.Migrate(ctx))
	const app = "retention-race-writer"
	writer := New(pgtest.Pool(t, func(c *pgxpool.Config) { c.ConnConfig.RuntimeParams["application_name"] = app }), WithSchema(schema))

	thread := "race-" + checkpoint.NewID()
	old := time.Now().Add(-48 * time.Hour)
	head, err := s.Put(ctx, checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: old, Versions: map[string]string{}},
	})
	require.NoError(t, err)

	locked, release := make(chan struct{}), make(chan struct{})
	hook := func(ids []string) {
		if slices.Contains(ids, thread) {
			close(locked)
			<-release
		}
	}
	staleLocked.Store(&hook)
	t.Cleanup(func() { staleLocked.Store(nil) })

	type result struct {
		deleted []string
		err     error
	}
	deleting := make(chan result)
	go func() {
		d, err := s.DeleteStaleThreads(ctx, time.Now().Add(-time.Hour), []string{thread})
		deleting <- result{d, err}
	}()
	<-locked
	putting := make(chan error)
	go func() {
		_, err := writer.Put(ctx, checkpoint.PutRequest{
			Config:     head,
			Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID(), CreatedAt: time.Now(), Versions: map[string]string{}},
			ExpectHead: head.CheckpointID,
		})
		putting <- err
	}()
	for waiting := false; !waiting; { // until the writer's statement waits on the delete's lock
		require.NoError(t, ctx.Err(), "the writer never waited on the lock")
		require.NoError(t, s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock')`, app).Scan(&waiting))
	}
	close(release)
	r := <-deleting
	require.NoError(t, r.err)
	require.Equal(t, []string{thread}, r.deleted)
	require.ErrorIs(t, <-putting, checkpoint.ErrConflict)
	_, err = s.Get(ctx, checkpoint.Config{ThreadID: thread})
	require.ErrorIs(t, err, checkpoint.ErrNotFound, "the writer stored nothing into the deleted thread")
}
