package retention_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// backend makes an empty saver of one kind.
type backend struct {
	name string
	new  func(t *testing.T) checkpoint.Saver
}

var backends = []backend{
	{"memory", func(t *testing.T) checkpoint.Saver { return memory.New() }},
	{"sqlite", func(t *testing.T) checkpoint.Saver {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "cp.db"))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, s.Close()) })
		return s
	}},
	{"postgres", func(t *testing.T) checkpoint.Saver {
		s := postgres.New(pgtest.Pool(t, nil), postgres.WithSchema(pgtest.Schema(t)))
		require.NoError(t, s.Migrate(context.Background()))
		return s
	}},
}

// forEach runs fn as a parallel subtest per backend.
func forEach(t *testing.T, fn func(t *testing.T, s checkpoint.Saver)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b.new(t))
		})
	}
}

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

// mustPut is put that fails the test on error, n times.
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
