package retentiontest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
)

// fixture writes checkpoints at chosen times, chaining each (thread,
// namespace) to its head.
type fixture struct {
	t     *testing.T
	s     checkpoint.Saver
	mu    sync.Mutex
	heads map[[2]string]string
}

func newFixture(t *testing.T, s checkpoint.Saver) *fixture {
	return &fixture{t: t, s: s, heads: map[[2]string]string{}}
}

// put stores a checkpoint of (thread, ns) created at at.
func (f *fixture) put(ctx context.Context, thread, ns string, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := [2]string{thread, ns}
	id := checkpoint.NewID()
	_, err := f.s.Put(ctx, checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread, Namespace: ns, CheckpointID: f.heads[k]},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: at, Versions: map[string]string{"v": id}, New: map[string]checkpoint.Blob{"v": {Data: []byte(`1`)}}},
		Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop},
		ExpectHead: f.heads[k],
	})
	if err == nil {
		f.heads[k] = id
	}
	return err
}

// mustPut stores n checkpoints of (thread, ns) created at at.
func (f *fixture) mustPut(thread, ns string, at time.Time, n int) {
	f.t.Helper()
	for range n {
		require.NoError(f.t, f.put(context.Background(), thread, ns, at))
	}
}

// count returns how many checkpoints (thread, ns) has (0 for none).
func count(t *testing.T, s checkpoint.Saver, thread, ns string) int {
	t.Helper()
	n := 0
	for _, err := range s.List(context.Background(), checkpoint.Config{ThreadID: thread, Namespace: ns}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		n++
	}
	return n
}
