package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
)

// newThread returns a thread id no other test uses.
func newThread() string { return "pgtest-" + uuid.NewString() }

// putReq builds a request that stores blobs as the checkpoint after parent,
// whose versions are those of the parent (parentVersions) updated with
// the new blobs.
func putReq(thread, parent string, parentVersions map[string]string, blobs map[string]checkpoint.Blob) checkpoint.PutRequest {
	versions := make(map[string]string, len(parentVersions)+len(blobs))
	for ch, v := range parentVersions {
		versions[ch] = v
	}
	for ch, b := range blobs {
		versions[ch] = b.Version
	}
	return checkpoint.PutRequest{
		Config: checkpoint.Config{ThreadID: thread, CheckpointID: parent},
		Checkpoint: checkpoint.Checkpoint{
			ID:        checkpoint.NewID(),
			CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
			Versions:  versions,
			New:       blobs,
		},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop},
		ExpectHead: parent,
	}
}

// mustPut stores req and returns its checkpoint id.
func mustPut(t testing.TB, s checkpoint.Saver, req checkpoint.PutRequest) string {
	t.Helper()
	_, err := s.Put(context.Background(), req)
	require.NoError(t, err)
	return req.Checkpoint.ID
}

// fullBlob is a blob holding a whole value.
func fullBlob(version, data string) checkpoint.Blob {
	return checkpoint.Blob{Version: version, Data: []byte(data)}
}

// deltaBlob is a blob holding the elements appended since base.
func deltaBlob(version, base, data string) checkpoint.Blob {
	return checkpoint.Blob{Version: version, Data: []byte(data), Delta: true, Base: base}
}

// configOf addresses the latest checkpoint of thread's root namespace.
func configOf(thread string) checkpoint.Config { return checkpoint.Config{ThreadID: thread} }

// pruneOrDelete prunes thread to its keep newest checkpoints, or deletes
// it for keep 0: the two ways a history changes under a List.
func pruneOrDelete(t testing.TB, s *postgres.Saver, thread string, keep int) {
	t.Helper()
	if keep == 0 {
		require.NoError(t, s.DeleteThread(context.Background(), thread))
		return
	}
	require.NoError(t, s.Prune(context.Background(), thread, keep))
}
