package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/checkpointtest"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
)

// rawDB opens a plain handle on the file, for inspecting and damaging it.
func rawDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	return db
}

// put stores a checkpoint with the given new blobs and versions on (thread,
// ""), as the child of parent, and returns its id.
func put(tb testing.TB, s checkpoint.Saver, thread, parent string, versions map[string]string, blobs map[string]checkpoint.Blob, md checkpoint.Metadata) string {
	tb.Helper()
	id := checkpoint.NewID()
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: thread, CheckpointID: parent},
		Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: time.Now(), Versions: versions, New: blobs},
		Metadata:   md,
		ExpectHead: parent,
	})
	require.NoError(tb, err)
	return id
}

func full(v, data string) checkpoint.Blob { return checkpoint.Blob{Version: v, Data: []byte(data)} }

func delta(v, base, data string) checkpoint.Blob {
	return checkpoint.Blob{Version: v, Data: []byte(data), Delta: true, Base: base}
}

func TestConformanceWithOwnHandle(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "own.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(60000)&_pragma=foreign_keys(1)") // every subtest writes through this one file at once: on a loaded machine a writer may wait long
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	newSaver := func(tb testing.TB) checkpoint.Saver {
		s, err := sqlite.New(db)
		require.NoError(tb, err)
		tb.Cleanup(func() { require.NoError(tb, s.Close()) })
		return s
	}
	checkpointtest.RunHarness(t, checkpointtest.Harness{
		New: newSaver,
		// Another Saver on the same handle.
		Reopen: func(tb testing.TB, _ checkpoint.Saver) checkpoint.Saver { return newSaver(tb) },
	})
}

func TestOpenTwiceAppliesMigrationsOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	// Two savers opened at once on a new file, then a third afterwards.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	savers := make([]*sqlite.Saver, 2)
	for i := range savers {
		wg.Go(func() { savers[i], errs[i] = sqlite.Open(path) })
	}
	wg.Wait()
	for i := range savers {
		require.NoError(t, errs[i])
		require.NoError(t, savers[i].Close())
	}
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	db := rawDB(t, path)
	var n, maxVersion int
	require.NoError(t, db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &maxVersion))
	require.Equal(t, maxVersion, n, "each migration recorded once")
	require.GreaterOrEqual(t, n, 1)
	var mode string
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "wal", mode)
}

func TestSurvivesReopen(t *testing.T) {
	t.Parallel()
	for _, sync := range []sqlite.Synchronous{sqlite.SyncNormal, sqlite.SyncFull} {
		t.Run(sync.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "r.db")
			s, err := sqlite.Open(path, sqlite.WithSynchronous(sync))
			require.NoError(t, err)
			first := put(t, s, "t", "", map[string]string{"items": "1"}, map[string]checkpoint.Blob{"items": full("1", `[1]`)}, checkpoint.Metadata{Step: -1, Source: checkpoint.SourceInput})
			second := put(t, s, "t", first, map[string]string{"items": "2"}, map[string]checkpoint.Blob{"items": delta("2", "1", `[2]`)}, checkpoint.Metadata{Step: 0})
			cfg := checkpoint.Config{ThreadID: "t", CheckpointID: second}
			require.NoError(t, s.PutWrites(context.Background(), cfg, "task", []checkpoint.PendingWrite{{Index: 0, Channel: "items", Value: []byte(`[3]`)}}))
			require.NoError(t, s.Close())

			s, err = sqlite.Open(path, sqlite.WithSynchronous(sync))
			require.NoError(t, err)
			defer s.Close()
			tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: "t"})
			require.NoError(t, err)
			require.Equal(t, second, tup.Checkpoint.ID)
			require.Equal(t, checkpoint.Value{Version: "2", Snapshot: []byte(`[1]`), Deltas: [][]byte{[]byte(`[2]`)}}, tup.Checkpoint.Values["items"])
			require.Equal(t, []checkpoint.PendingWrite{{TaskID: "task", Index: 0, Channel: "items", Value: []byte(`[3]`)}}, tup.PendingWrites)
			require.Equal(t, first, tup.Parent.CheckpointID)
		})
	}
}

// TestConcurrentWritersKeepOneChain races writers in goroutines of one
// saver and of two savers (two handles) on one file: each reads the head
// and puts a child of it. Every put either wins or gets ErrConflict, and
// the stored history is one unbroken chain of the winners.
func TestConcurrentWritersKeepOneChain(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cas.db")
	a, err := sqlite.Open(path)
	require.NoError(t, err)
	defer a.Close()
	b, err := sqlite.Open(path)
	require.NoError(t, err)
	defer b.Close()

	const writers, attempts = 8, 40
	ctx := context.Background()
	var mu sync.Mutex
	won := map[string]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range attempts {
				head := ""
				if tup, err := s.Get(ctx, checkpoint.Config{ThreadID: "race"}); err == nil {
					head = tup.Checkpoint.ID
				} else if !errors.Is(err, checkpoint.ErrNotFound) {
					t.Error(err)
					return
				}
				id := checkpoint.NewID()
				v := fmt.Sprintf("w%d-%d", w, i)
				_, err := s.Put(ctx, checkpoint.PutRequest{
					Config:     checkpoint.Config{ThreadID: "race", CheckpointID: head},
					Checkpoint: checkpoint.Checkpoint{ID: id, Versions: map[string]string{"n": v}, New: map[string]checkpoint.Blob{"n": full(v, `"`+v+`"`)}},
					ExpectHead: head,
				})
				switch {
				case err == nil:
					mu.Lock()
					won[id] = true
					mu.Unlock()
				case errors.Is(err, checkpoint.ErrConflict):
					require.Contains(t, err.Error(), `"race"`)
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()

	var chain []*checkpoint.Tuple
	for tup, err := range a.List(ctx, checkpoint.Config{ThreadID: "race"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		chain = append(chain, tup)
	}
	require.Len(t, chain, len(won))
	for i, tup := range chain {
		require.True(t, won[tup.Checkpoint.ID], "checkpoint %s was stored but its put failed", tup.Checkpoint.ID)
		if i == len(chain)-1 {
			require.Nil(t, tup.Parent)
		} else {
			require.Equal(t, chain[i+1].Checkpoint.ID, tup.Parent.CheckpointID, "the history is one chain")
		}
	}
}

func TestConflictNamesThreadNamespaceAndHeads(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	head := put(t, s, "t1", "", nil, nil, checkpoint.Metadata{})
	stale := checkpoint.NewID()
	_, err := s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: "t1", Namespace: "sub:1"},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()},
		ExpectHead: stale,
	})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	for _, want := range []string{`"t1"`, `"sub:1"`, stale} {
		require.Contains(t, err.Error(), want)
	}
	_, err = s.Put(context.Background(), checkpoint.PutRequest{
		Config:     checkpoint.Config{ThreadID: "t1"},
		Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()},
	})
	require.ErrorIs(t, err, checkpoint.ErrConflict)
	require.Contains(t, err.Error(), head, "names the actual head")
}

func TestPutRejectsIDNotAfterHead(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	old := checkpoint.NewID()
	head := put(t, s, "t", "", nil, nil, checkpoint.Metadata{})
	for _, id := range []string{head, old} {
		_, err := s.Put(context.Background(), checkpoint.PutRequest{
			Config:     checkpoint.Config{ThreadID: "t", CheckpointID: head},
			Checkpoint: checkpoint.Checkpoint{ID: id},
			ExpectHead: head,
		})
		require.Error(t, err)
		require.Contains(t, err.Error(), "not greater than the head")
	}
}

func TestBusyWriterTimesOutWithoutConflict(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := sqlite.Open(path, sqlite.WithBusyTimeout(20*time.Millisecond))
	require.NoError(t, err)
	defer s.Close()

	// Another handle holds the write lock.
	conn := holdWriteLock(t, path)

	_, err = s.Put(context.Background(), checkpoint.PutRequest{Config: checkpoint.Config{ThreadID: "t"}, Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()}})
	require.Error(t, err)
	require.NotErrorIs(t, err, checkpoint.ErrConflict)

	// A cancelled context ends the wait with context.Canceled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Put(ctx, checkpoint.PutRequest{Config: checkpoint.Config{ThreadID: "t"}, Checkpoint: checkpoint.Checkpoint{ID: checkpoint.NewID()}})
	require.ErrorIs(t, err, context.Canceled)

	_, err = conn.ExecContext(context.Background(), "ROLLBACK")
	require.NoError(t, err)
	put(t, s, "t", "", nil, nil, checkpoint.Metadata{})
}

// TestDeltasAreAppendedNotRewritten checks that each put of an append-only
// channel adds one small row and that a long chain rebuilds.
func TestDeltasAreAppendedNotRewritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "d.db")
	s, err := sqlite.Open(path)
	require.NoError(t, err)
	defer s.Close()

	const n = 300
	parent := put(t, s, "t", "", map[string]string{"items": "v0"}, map[string]checkpoint.Blob{"items": full("v0", `[]`)}, checkpoint.Metadata{})
	for i := 1; i <= n; i++ {
		v, base := fmt.Sprintf("v%d", i), fmt.Sprintf("v%d", i-1)
		parent = put(t, s, "t", parent, map[string]string{"items": v}, map[string]checkpoint.Blob{"items": delta(v, base, fmt.Sprintf(`[%d]`, i))}, checkpoint.Metadata{Step: i})
	}
	db := rawDB(t, path)
	var rows, maxLen int
	require.NoError(t, db.QueryRow(`SELECT count(*), max(length(data)) FROM blobs WHERE thread_id = 't'`).Scan(&rows, &maxLen))
	require.Equal(t, n+1, rows, "one blob row per put")
	require.LessOrEqual(t, maxLen, len(fmt.Sprintf(`[%d]`, n)), "no row holds the whole history")

	tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: "t"})
	require.NoError(t, err)
	val := tup.Checkpoint.Values["items"]
	require.Equal(t, []byte(`[]`), val.Snapshot)
	require.Len(t, val.Deltas, n)
	for i, d := range val.Deltas {
		require.Equal(t, fmt.Sprintf(`[%d]`, i+1), string(d))
	}
}

// TestListPages lists a history longer than several pages, with filters
// that run in SQL and filters that run in Go, before and limit.
func TestListPages(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	const n = 700
	ids := make([]string, n)
	parent := ""
	for i := range n {
		v := fmt.Sprintf("v%d", i)
		src := checkpoint.SourceLoop
		if i%5 == 0 {
			src = checkpoint.SourceUpdate
		}
		parent = put(t, s, "t", parent, map[string]string{"x": v}, map[string]checkpoint.Blob{"x": full(v, fmt.Sprint(i))},
			checkpoint.Metadata{Source: src, Step: i, Extra: map[string]any{"mod3": i % 3, "parity": []string{"even", "odd"}[i%2]}})
		ids[i] = parent
	}
	pick := func(keep func(i int) bool, before, limit int) []string {
		var out []string
		for i := before - 1; i >= 0 && (limit == 0 || len(out) < limit); i-- {
			if keep(i) {
				out = append(out, ids[i])
			}
		}
		return out
	}
	all := func(int) bool { return true }
	cases := []struct {
		name   string
		opts   checkpoint.ListOptions
		before int
		keep   func(int) bool
	}{
		{"all", checkpoint.ListOptions{}, n, all},
		{"limit across pages", checkpoint.ListOptions{Limit: 100}, n, all},
		{"before", checkpoint.ListOptions{Before: ids[650]}, 650, all},
		{"before and limit", checkpoint.ListOptions{Before: ids[650], Limit: 45}, 650, all},
		{"sql filter", checkpoint.ListOptions{Filter: map[string]any{"source": "update"}}, n, func(i int) bool { return i%5 == 0 }},
		{"sql filter and limit", checkpoint.ListOptions{Filter: map[string]any{"source": "update"}, Limit: 50}, n, func(i int) bool { return i%5 == 0 }},
		{"sql extra filter", checkpoint.ListOptions{Filter: map[string]any{"parity": "odd"}, Limit: 30}, n, func(i int) bool { return i%2 == 1 }},
		{"go filter", checkpoint.ListOptions{Filter: map[string]any{"mod3": 2}}, n, func(i int) bool { return i%3 == 2 }},
		{"go filter and limit", checkpoint.ListOptions{Filter: map[string]any{"mod3": 0}, Limit: 70}, n, func(i int) bool { return i%3 == 0 }},
		{"mixed filter", checkpoint.ListOptions{Filter: map[string]any{"mod3": 1, "source": "update", "step": 610}}, n, func(i int) bool { return i == 610 }},
	}
	for _, c := range cases {
		var got []string
		for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: "t"}, c.opts) {
			require.NoError(t, err, c.name)
			require.Equal(t, fmt.Sprint(tup.Metadata.Step), string(tup.Checkpoint.Values["x"].Snapshot), c.name)
			got = append(got, tup.Checkpoint.ID)
		}
		require.Equal(t, pick(c.keep, c.before, c.opts.Limit), got, c.name)
	}
}

// TestFilterInSQLAgreesWithMatches lists metadata of awkward shapes with
// filters of every type and checks that List keeps exactly what
// Metadata.Matches keeps.
func TestFilterInSQLAgreesWithMatches(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	mds := []checkpoint.Metadata{
		{Source: checkpoint.SourceLoop, Step: 1, RunID: "r1"},
		{Source: checkpoint.SourceInput, Step: -1, Extra: map[string]any{"run_id": "r1"}},             // shows through
		{Source: checkpoint.SourceLoop, Step: 2, RunID: "r2", Extra: map[string]any{"run_id": "r1"}},  // hidden
		{Source: checkpoint.SourceLoop, Step: 3, Extra: map[string]any{"source": "input", "step": 1}}, // hidden
		{Source: "", Step: 0, Extra: map[string]any{"flag": true, "n": 1, "s": "1", "nil": nil}},
		{Source: checkpoint.SourceFork, Step: 4, Extra: map[string]any{"s": 1, "quote\"key": "v", "nested": map[string]any{"a": "b"}}},
		{Source: checkpoint.SourceUpdate, Step: 5, Extra: map[string]any{"s": "1", "flag": "true", "n": "1"}},
	}
	var ids []string
	parent := ""
	for _, md := range mds {
		parent = put(t, s, "t", parent, nil, nil, md)
		ids = append(ids, parent)
	}
	filters := []map[string]any{
		{"run_id": "r1"}, {"run_id": ""}, {"run_id": 1},
		{"source": "input"}, {"source": ""}, {"source": checkpoint.SourceFork}, {"source": 1},
		{"step": 1}, {"step": 1.0}, {"step": int64(-1)}, {"step": "1"}, {"step": 1.5},
		{"flag": true}, {"flag": "true"}, {"n": 1}, {"n": "1"}, {"s": "1"}, {"s": 1},
		{"nil": nil}, {"quote\"key": "v"}, {"nested": map[string]any{"a": "b"}}, {"nested": "b"},
		{"s": "1", "source": "update"}, {"missing": "x"},
	}
	for _, f := range filters {
		var want []string
		for i := len(mds) - 1; i >= 0; i-- {
			// As the metadata reads back: a JSON round trip.
			tup, err := s.Get(context.Background(), checkpoint.Config{ThreadID: "t", CheckpointID: ids[i]})
			require.NoError(t, err)
			if tup.Metadata.Matches(f) {
				want = append(want, ids[i])
			}
		}
		var got []string
		for tup, err := range s.List(context.Background(), checkpoint.Config{ThreadID: "t"}, checkpoint.ListOptions{Filter: f}) {
			require.NoError(t, err)
			got = append(got, tup.Checkpoint.ID)
		}
		require.Equal(t, want, got, "filter %v", f)
	}
}
