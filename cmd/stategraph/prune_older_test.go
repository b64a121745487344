package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/internal/pgtest"
)

// oldThreads writes threads whose checkpoints are days old: old-40 (3
// checkpoints, 40 days), old-31 (one, 31 days) and young-10 (two, 10
// days).
func oldThreads(t testing.TB, s checkpoint.Saver) {
	t.Helper()
	now := time.Now()
	for thread, spec := range map[string]struct{ days, n int }{"old-40": {40, 3}, "old-31": {31, 1}, "young-10": {10, 2}} {
		head := ""
		for range spec.n {
			id := checkpoint.NewID()
			_, err := s.Put(context.Background(), checkpoint.PutRequest{
				Config:     checkpoint.Config{ThreadID: thread, CheckpointID: head},
				Checkpoint: checkpoint.Checkpoint{ID: id, CreatedAt: now.Add(-time.Duration(spec.days) * 24 * time.Hour), Versions: map[string]string{}},
				Metadata:   checkpoint.Metadata{Source: checkpoint.SourceLoop},
				ExpectHead: head,
			})
			require.NoError(t, err)
			head = id
		}
	}
}

// listThreads lists the threads of the database, sorted.
func listThreads(t *testing.T, run func(args ...string) result) []string {
	t.Helper()
	r := run("-json", "threads")
	require.Equal(t, 0, r.code, r.stderr)
	var rows []threadRow
	require.NoError(t, jsonUnmarshal(r.stdout, &rows))
	var ids []string
	for _, row := range rows {
		ids = append(ids, row.Thread)
	}
	slices.Sort(ids)
	return ids
}

func TestPruneOlderThanDeletesTheThreadsUntouchedSinceThen(t *testing.T) {
	t.Parallel()
	db := newDB(t, "old.db", populate, oldThreads)
	run := func(args ...string) result { return onDB(t, db, args...) }
	before := listThreads(t, run)
	require.Contains(t, before, "old-40")

	r := run("prune", "--older-than", "720h", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^deleted 2 threads whose last checkpoint is older than 720h0m0s \(before .+\)\n  old-31\n  old-40\n$`, r.stdout)
	after := listThreads(t, run)
	assert.Equal(t, slices.DeleteFunc(before, func(id string) bool { return id == "old-31" || id == "old-40" }), after, "the others stay")

	v := decode[pruneOlderView](t, db, "prune", "--older-than", "720h", "-y")
	assert.Empty(t, v.Deleted, "nothing is left to delete")
	assert.Equal(t, "720h0m0s", v.OlderThan)
}

func TestPruneOlderThanWithKeepPrunesThem(t *testing.T) {
	t.Parallel()
	db := newDB(t, "old.db", oldThreads)
	v := decode[pruneOlderView](t, db, "prune", "--older-than", "30d", "--keep", "1", "-y")
	assert.Equal(t, []string{"old-31", "old-40"}, v.Pruned)
	assert.Empty(t, v.Deleted)
	assert.Len(t, decode[[]historyRow](t, db, "history", "old-40"), 1)
	assert.Len(t, decode[[]historyRow](t, db, "history", "young-10"), 2)

	r := onDB(t, db, "prune", "--older-than", "5d", "--keep", "1", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pruned to 1 checkpoints 3 threads")
}

func TestPruneOlderThanRefusesBadArguments(t *testing.T) {
	t.Parallel()
	db := newDB(t, "old.db", oldThreads)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prune", "--older-than", "0s"}, "--older-than must be positive, not 0s"},
		{[]string{"prune", "--older-than", "-1h"}, "--older-than must be positive"},
		{[]string{"prune", "--older-than", "soon"}, `invalid value "soon" for flag -older-than: not a duration (say 720h or 30d)`},
		{[]string{"prune", "--older-than", "xd"}, "not a number of days"},
		{[]string{"prune", "--older-than", "720h", "--keep", "0"}, "--keep must be at least 1, not 0"},
		{[]string{"prune", "old-40", "--older-than", "720h"}, "give THREAD or --older-than, not both"},
		{[]string{"prune", "--keep", "2"}, "missing THREAD (or --older-than D)"},
	} {
		r := onDB(t, db, c.args...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, c.args)
	}
	assert.Len(t, decode[[]historyRow](t, db, "history", "old-40"), 3, "nothing was removed")
}

func TestPostgresPruneOlderThan(t *testing.T) {
	t.Parallel()
	dsn, schema := pgtest.DSN(t), pgtest.Schema(t)
	ctx := context.Background()
	saver, err := postgres.Open(ctx, dsn, postgres.WithSchema(schema))
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })
	require.NoError(t, saver.Migrate(ctx))
	oldThreads(t, saver)
	run := func(args ...string) result {
		return cli(t, nil, append([]string{"-dsn", dsn, "-schema", schema}, args...)...)
	}

	r := run("-json", "prune", "--older-than", "720h", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	var v pruneOlderView
	require.NoError(t, jsonUnmarshal(r.stdout, &v))
	assert.Equal(t, []string{"old-31", "old-40"}, v.Deleted)
	assert.Equal(t, []string{"young-10"}, listThreads(t, run))
}
