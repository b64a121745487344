package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistoryListsCheckpointsNewestFirst(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	rows := decode[[]historyRow](t, db, "history", threadDone)
	require.Len(t, rows, 5)
	var steps, sources []any
	for i, r := range rows {
		steps, sources = append(steps, r.Step), append(sources, r.Source)
		assert.NotEmpty(t, r.RunID)
		if i+1 < len(rows) {
			assert.Equal(t, rows[i+1].Checkpoint, r.Parent, "each checkpoint's parent is the one before it")
			assert.Greater(t, r.Checkpoint, rows[i+1].Checkpoint)
		}
	}
	assert.Equal(t, []any{3, 2, 1, 0, -1}, steps)
	assert.Equal(t, []any{"loop", "loop", "loop", "loop", "input"}, sources)
	assert.Equal(t, []string{"review"}, rows[0].Nodes)
	assert.Equal(t, []string{"write"}, rows[1].Nodes)
	assert.Equal(t, []string{}, rows[3].Nodes)
	assert.Equal(t, []string{}, rows[4].Nodes)
	assert.Empty(t, rows[4].Parent)

	r := onDB(t, db, "history", threadDone)
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 6)
	assert.Regexp(t, `^STEP\s+SOURCE\s+NODES\s+TIME\s+CHECKPOINT$`, out[0])
	assert.Regexp(t, `^3\s+loop\s+review\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+`+rows[0].Checkpoint+`$`, out[1])
	assert.Regexp(t, `^2\s+loop\s+write\s+.*`+rows[1].Checkpoint+`$`, out[2])
	assert.Regexp(t, `^0\s+loop\s+-\s+.*`+rows[3].Checkpoint+`$`, out[4])
	assert.Regexp(t, `^-1\s+input\s+-\s+.*`+rows[4].Checkpoint+`$`, out[5])
}

func TestHistoryLimitShowsTheNewestCheckpoints(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	all := decode[[]historyRow](t, db, "history", threadDone)
	require.Len(t, all, 5)
	for _, args := range [][]string{
		{"history", threadDone, "-n", "2"},
		{"history", "--limit", "2", threadDone},
		{"history", threadDone, "--limit=2"},
		{"history", "-n=2", threadDone},
	} {
		assert.Equal(t, all[:2], decode[[]historyRow](t, db, args...), "%v", args)
	}
	r := onDB(t, db, "history", threadDone, "-n", "2")
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 4)
	assert.Regexp(t, `^3\s+loop\s+review\s+.*`+all[0].Checkpoint+`$`, out[1])
	assert.Regexp(t, `^2\s+loop\s+write\s+.*`+all[1].Checkpoint+`$`, out[2])
	assert.Equal(t, "(the newest 2; older checkpoints not shown)", out[3])

	// A limit the history does not reach shows it all, and says nothing.
	r = onDB(t, db, "history", threadDone, "-n", "5")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, lines(r.stdout), 6)
	assert.NotContains(t, r.stdout, "not shown")
	assert.Len(t, decode[[]historyRow](t, db, "history", threadDone, "-n", "50"), 5)

	for _, bad := range []string{"0", "-1"} {
		r := onDB(t, db, "history", threadDone, "-n", bad)
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "history: -n (--limit) must be at least 1, not "+bad)
	}
	r = onDB(t, db, "history", threadDone, "--limit", "many")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `invalid value "many" for flag -limit: not an integer`)
}
