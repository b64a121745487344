package encrypt_test

import (
	"context"
	"crypto/rand"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// newKey returns a fresh random key named id.
func newKey(tb testing.TB, id string) encrypt.Key {
	tb.Helper()
	secret := make([]byte, encrypt.KeySize)
	_, err := rand.Read(secret)
	require.NoError(tb, err)
	return encrypt.Key{ID: id, Secret: secret}
}

// newRing returns a keyring of one fresh key.
func newRing(tb testing.TB) *encrypt.Keyring {
	tb.Helper()
	ring, err := encrypt.NewKeyring(newKey(tb, "k1"))
	require.NoError(tb, err)
	return ring
}

// openSQLite opens a SQLite saver on path, closed when tb ends.
func openSQLite(tb testing.TB, path string) *sqlite.Saver {
	tb.Helper()
	s, err := sqlite.Open(path)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, s.Close()) })
	return s
}

// The conformance suite holds through the wrapper on every backend. Its
// CopyThread group is skipped: the wrapper is not a Copier (see Wrap).
func TestConformanceMemory(t *testing.T) {
	t.Parallel()
	ring := newRing(t)
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(testing.TB) checkpoint.Saver { return encrypt.Wrap(memory.New(), ring) },
	})
}

func TestConformanceSQLite(t *testing.T) {
	t.Parallel()
	ring := newRing(t)
	var files sync.Map // wrapped saver → its file
	open := func(tb testing.TB, path string) checkpoint.Saver {
		s := encrypt.Wrap(openSQLite(tb, path), ring)
		files.Store(s, path)
		return s
	}
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: func(tb testing.TB) checkpoint.Saver { return open(tb, filepath.Join(tb.TempDir(), "cp.db")) },
		Reopen: func(tb testing.TB, s checkpoint.Saver) checkpoint.Saver {
			path, ok := files.Load(s)
			require.True(tb, ok, "a saver of New")
			return open(tb, path.(string))
		},
	})
}

func TestConformancePostgres(t *testing.T) {
	t.Parallel()
	ring := newRing(t)
	schema := pgtest.Schema(t)
	open := func(tb testing.TB) checkpoint.Saver {
		s := encrypt.Wrap(postgres.New(pgtest.Pool(tb, nil), postgres.WithSchema(schema)), ring)
		require.NoError(tb, s.(interface{ Migrate(context.Context) error }).Migrate(context.Background()))
		return s
	}
	s := open(t)
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New:     func(testing.TB) checkpoint.Saver { return s },
		Reopen:  func(tb testing.TB, _ checkpoint.Saver) checkpoint.Saver { return open(tb) },
		IsLimit: func(err error) bool { return errors.Is(err, postgres.ErrLimit) },
	})
}
