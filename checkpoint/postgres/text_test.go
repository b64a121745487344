package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// TestTextPostgreSQLCannotHoldIsErrLimitNamingTheField pins that a thread
// id, namespace, checkpoint id, task id or channel with U+0000 or invalid
// UTF-8 — which a PostgreSQL text column cannot hold — is refused with
// ErrLimit naming the field, not a raw driver error, and stores nothing.
func TestTextPostgreSQLCannotHoldIsErrLimitNamingTheField(t *testing.T) {
	t.Parallel()
	s, _, _ := newSaver(t)
	ctx := context.Background()
	for _, bad := range []string{"nul\x00", "bad\xff"} {
		t.Run("put", func(t *testing.T) {
			for field, edit := range map[string]func(*checkpoint.PutRequest){
				"thread id":     func(r *checkpoint.PutRequest) { r.Config.ThreadID = bad },
				"namespace":     func(r *checkpoint.PutRequest) { r.Config.Namespace = bad },
				"checkpoint id": func(r *checkpoint.PutRequest) { r.Checkpoint.ID = bad },
				"parent id":     func(r *checkpoint.PutRequest) { r.Config.CheckpointID = bad; r.ExpectHead = "" },
				"channel": func(r *checkpoint.PutRequest) {
					r.Checkpoint.New = map[string]checkpoint.Blob{bad: fullBlob("v1", "1")}
					r.Checkpoint.Versions = map[string]string{bad: "v1"}
				},
				"version": func(r *checkpoint.PutRequest) {
					r.Checkpoint.New = map[string]checkpoint.Blob{"n": fullBlob(bad, "1")}
					r.Checkpoint.Versions = map[string]string{"n": bad}
				},
			} {
				thread := newThread()
				req := putReq(thread, "", nil, map[string]checkpoint.Blob{"n": fullBlob("v1", "1")})
				edit(&req)
				_, err := s.Put(ctx, req)
				require.ErrorIs(t, err, postgres.ErrLimit, "%s %q", field, bad)
				require.ErrorContains(t, err, field, "%q", bad)
				_, err = s.Get(ctx, configOf(thread))
				require.ErrorIs(t, err, checkpoint.ErrNotFound, "%s %q: nothing stored", field, bad)
			}
		})
		t.Run("put writes", func(t *testing.T) {
			thread := newThread()
			id := mustPut(t, s, putReq(thread, "", nil, map[string]checkpoint.Blob{"n": fullBlob("v1", "1")}))
			cfg := checkpoint.Config{ThreadID: thread, CheckpointID: id}
			err := s.PutWrites(ctx, cfg, bad, []checkpoint.PendingWrite{{Channel: "n", Value: []byte("1")}})
			require.ErrorIs(t, err, postgres.ErrLimit, "task id %q", bad)
			require.ErrorContains(t, err, "task id")
			err = s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Channel: bad, Value: []byte("1")}})
			require.ErrorIs(t, err, postgres.ErrLimit, "channel %q", bad)
			require.ErrorContains(t, err, "channel")
			cfg.ThreadID = bad
			err = s.PutWrites(ctx, cfg, "task", []checkpoint.PendingWrite{{Channel: "n", Value: []byte("1")}})
			require.ErrorIs(t, err, postgres.ErrLimit, "thread id %q", bad)
			require.ErrorContains(t, err, "thread id")
			tup, err := s.Get(ctx, checkpoint.Config{ThreadID: thread, CheckpointID: id})
			require.NoError(t, err)
			require.Empty(t, tup.PendingWrites)
		})
		t.Run("read", func(t *testing.T) {
			// No thread can have such an id: not found, not a driver error.
			_, err := s.Get(ctx, configOf(bad))
			require.ErrorIs(t, err, checkpoint.ErrNotFound, "%q", bad)
			for _, err := range s.List(ctx, configOf(bad), checkpoint.ListOptions{}) {
				require.NoError(t, err)
				t.Fatalf("a checkpoint of thread %q", bad)
			}
			require.NoError(t, s.DeleteThread(ctx, bad))
			require.NoError(t, s.Prune(ctx, bad, 1))
			require.ErrorIs(t, s.CopyThread(ctx, bad, newThread()), checkpoint.ErrNotFound)
			src := newThread()
			mustPut(t, s, putReq(src, "", nil, map[string]checkpoint.Blob{"n": fullBlob("v1", "1")}))
			err = s.CopyThread(ctx, src, bad)
			require.ErrorIs(t, err, postgres.ErrLimit)
			require.ErrorContains(t, err, "destination thread id")
		})
	}
}
