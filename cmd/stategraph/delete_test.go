package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeleteRemovesOnlyThatThread(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "delete", "-y", threadFailed)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "deleted thread failed-1 (4 checkpoints)\n", r.stdout)

	gone := onDB(t, db, "history", threadFailed)
	assert.Equal(t, 1, gone.code)
	assert.Contains(t, gone.stderr, `unknown thread "failed-1"`)
	rows := decode[[]threadRow](t, db, "threads")
	assert.Len(t, rows, 4)

	v := decode[deleteView](t, db, "delete", threadDone, "-yes")
	assert.Equal(t, deleteView{Thread: threadDone, Deleted: true, Checkpoints: 5}, v)
}

func TestDeleteRemovesEveryNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "delete", threadNested, "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "deleted thread nested-1 (4 checkpoints)\n", r.stdout, "the count is the root's")

	// Not a checkpoint of the thread is left in any namespace: -ns finds
	// no namespace at all.
	gone := onDB(t, db, "history", threadNested, "-ns", subgraphNode)
	assert.Equal(t, 1, gone.code)
	assert.Contains(t, gone.stderr, `unknown thread "nested-1"`)
	for _, row := range decode[[]threadRow](t, db, "threads") {
		assert.NotEqual(t, threadNested, row.Thread)
	}
}

func TestPruneKeepsTheNewestCheckpoints(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	before := decode[[]historyRow](t, db, "history", threadDone)

	r := onDB(t, db, "prune", threadDone, "--keep", "2", "-y")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "pruned thread done-1: kept 2 of 5 checkpoints, removed 3\n", r.stdout)
	after := decode[[]historyRow](t, db, "history", threadDone)
	assert.Equal(t, before[:2], after)

	// The state of the kept head is whole: values rebuilt after pruning.
	v := decode[stateView](t, db, "state", threadDone)
	assert.JSONEq(t, `["Go, draft 1","Go, draft 2"]`, string(v.Values["drafts"]))

	// Flags may come first; -json after the command.
	p := decode[pruneView](t, db, "prune", "-keep=1", "-y", threadDone)
	assert.Equal(t, pruneView{Thread: threadDone, Keep: 1, Before: 2, After: 1, Removed: 1}, p)
}

func TestPruneKeepsTheNewestCheckpointsOfEveryNamespace(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	before := decode[[]historyRow](t, db, "history", threadNested, "-ns", subgraphNode)
	require.Len(t, before, 5)

	p := decode[pruneView](t, db, "prune", threadNested, "--keep", "2", "-y")
	assert.Equal(t, pruneView{Thread: threadNested, Keep: 2, Before: 4, After: 2, Removed: 2}, p, "the counts are the root's")

	after := decode[[]historyRow](t, db, "history", threadNested, "-ns", subgraphNode)
	assert.Equal(t, before[:2], after)
	v := decode[stateView](t, db, "state", threadNested, "-ns", subgraphNode)
	assert.JSONEq(t, `["Py, outline","Py, draft 1","Py, draft 2"]`, string(v.Values["drafts"]))
	rows := decode[[]threadRow](t, db, "threads")
	require.Equal(t, threadNested, rows[0].Thread)
	require.Len(t, rows[0].Namespaces, 1)
	assert.Equal(t, 2, rows[0].Namespaces[0].Checkpoints)
}

// fakeTerminal is a terminal someone answers on with answers.
func fakeTerminal(answers string) terminal {
	return terminal{in: strings.NewReader(answers), interactive: true}
}

// runIn runs the inspector in this process on term, and returns what it
// printed and its exit status.
func runIn(t *testing.T, term terminal, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr strings.Builder
	code := runOn(t.Context(), term, args, &stdout, &stderr, func(k string) string { return env[k] })
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

func TestDeleteAsksOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer  string
		deleted bool
	}{
		{"y\n", true}, {"YES\n", true}, {" yes \n", true}, {"y", true},
		{"n\n", false}, {"\n", false}, {"", false}, {"sure\n", false},
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			t.Parallel()
			db := sqliteDB(t)
			r := runIn(t, fakeTerminal(tc.answer), nil, "-db", db, "delete", threadFailed)
			assert.True(t, strings.HasPrefix(r.stderr, "delete thread failed-1 (4 checkpoints)? [y/N] "), r.stderr)
			left := decode[[]threadRow](t, db, "threads")
			if tc.deleted {
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "deleted thread failed-1 (4 checkpoints)\n", r.stdout)
				assert.Len(t, left, 4)
				return
			}
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, `thread failed-1 (4 checkpoints): not confirmed: not done (the answer was not yes)`)
			assert.Len(t, left, 5, "nothing was deleted")
		})
	}
}

func TestDeleteWithoutATerminalNeedsYes(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	// The built command, its standard input not a terminal: the command
	// did not do its work (exit 1); the command line was right (not 2).
	r := onDB(t, db, "delete", threadFailed)
	assert.Equal(t, exitFailed, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "stategraph: delete thread failed-1 (4 checkpoints): not confirmed: standard input is not a terminal to confirm on; give -y to delete without asking\n", r.stderr)
	assert.Len(t, decode[[]threadRow](t, db, "threads"), 5, "nothing was deleted")

	// In this process too, with input that is not a terminal.
	r = runIn(t, terminal{in: strings.NewReader("y\n")}, nil, "-db", db, "delete", threadFailed)
	assert.Equal(t, exitFailed, r.code)
	assert.Len(t, decode[[]threadRow](t, db, "threads"), 5)

	// -yes deletes without asking, even on a terminal.
	r = runIn(t, fakeTerminal(""), nil, "-db", db, "delete", threadFailed, "-yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr, "no question asked")
	assert.Len(t, decode[[]threadRow](t, db, "threads"), 4)
}

func TestPruneAsksOnATerminalLikeDelete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer string
		pruned bool
	}{
		{"y\n", true}, {"yes\n", true}, {"n\n", false}, {"", false},
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			t.Parallel()
			db := sqliteDB(t)
			r := runIn(t, fakeTerminal(tc.answer), nil, "-db", db, "prune", threadDone, "--keep", "2")
			assert.True(t, strings.HasPrefix(r.stderr, "prune thread done-1 to its newest 2 checkpoints (3 of 5 deleted)? [y/N] "), r.stderr)
			left := len(decode[[]historyRow](t, db, "history", threadDone))
			if tc.pruned {
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, 2, left)
				return
			}
			assert.Equal(t, exitFailed, r.code)
			assert.Equal(t, 5, left, "nothing was pruned")
		})
	}
}

func TestPruneWithoutATerminalNeedsY(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"prune", threadDone, "--keep", "2"},
		{"prune", "--older-than", "1h"},
	} {
		db := sqliteDB(t)
		r := onDB(t, db, args...)
		assert.Equal(t, exitFailed, r.code, "%v", args)
		assert.Contains(t, r.stderr, "not confirmed: standard input is not a terminal to confirm on; give -y to prune without asking")
		assert.Len(t, decode[[]historyRow](t, db, "history", threadDone), 5, "%v: nothing was pruned", args)
	}
}

func TestPruneKeepingEveryCheckpointAsksNothing(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "prune", threadDone, "--keep", "5")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "pruned thread done-1: kept 5 of 5 checkpoints, removed 0\n", r.stdout)
}
