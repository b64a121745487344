package main

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThreadsShowsEachThreadsStepAndStatus(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)

	r := onDB(t, db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	out := lines(r.stdout)
	require.Len(t, out, 6)
	assert.Regexp(t, `^THREAD\s+STEP\s+STATUS\s+CHECKPOINTS\s+NAMESPACES\s+UPDATED$`, out[0])
	rows := map[string]string{}
	for _, l := range out[1:] {
		rows[strings.Fields(l)[0]] = l
	}
	assert.Regexp(t, `^done-1\s+3\s+done\s+5\s+0\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`, rows[threadDone])
	assert.Regexp(t, `^paused-1\s+2\s+interrupted \(review\)\s+4\s+0\s`, rows[threadPaused])
	assert.Regexp(t, `^asking-1\s+2\s+interrupted \(review\)\s+4\s+0\s`, rows[threadInterrupted])
	assert.Regexp(t, `^failed-1\s+2\s+error \(review: .*reviewer unavailable\)\s+4\s+0\s`, rows[threadFailed])
	// The nested thread has 4 checkpoints of its own and 1 subgraph namespace.
	assert.Regexp(t, `^nested-1\s+2\s+done\s+4\s+1\s`, rows[threadNested])
	// Columns line up: every row's status starts where the header's does.
	col := strings.Index(out[0], "STATUS")
	for _, l := range out[1:] {
		assert.NotEqual(t, ' ', rune(l[col]), l)
		assert.Equal(t, ' ', rune(l[col-1]), l)
	}
}

func TestThreadsJSON(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	rows := decode[[]threadRow](t, db, "threads")
	require.Len(t, rows, 5)
	byID := map[string]threadRow{}
	for _, r := range rows {
		byID[r.Thread] = r
		assert.NotEmpty(t, r.Head)
		assert.False(t, r.Updated.IsZero())
	}
	// Most recently updated first: the threads were run in this order.
	assert.Equal(t, []string{threadNested, threadFailed, threadInterrupted, threadPaused, threadDone},
		[]string{rows[0].Thread, rows[1].Thread, rows[2].Thread, rows[3].Thread, rows[4].Thread})

	none := []namespaceRow{}
	assert.Equal(t, threadRow{Thread: threadDone, Step: 3, Status: "done", Next: []string{}, Checkpoints: 5, Namespaces: none},
		withoutVolatile(byID[threadDone]))
	assert.Equal(t, threadRow{Thread: threadPaused, Step: 2, Status: "interrupted", Next: []string{"review"}, Checkpoints: 4, Namespaces: none},
		withoutVolatile(byID[threadPaused]))
	assert.Equal(t, threadRow{Thread: threadInterrupted, Step: 2, Status: "interrupted", Next: []string{"review"}, Checkpoints: 4, Namespaces: none},
		withoutVolatile(byID[threadInterrupted]))
	failed := withoutVolatile(byID[threadFailed])
	assert.Contains(t, failed.Error, reviewError)
	failed.Error = ""
	assert.Equal(t, threadRow{Thread: threadFailed, Step: 2, Status: "error", Next: []string{"review"}, Checkpoints: 4, Namespaces: none}, failed)

	// The nested thread's subgraph checkpointed in a namespace of its own,
	// named after the subgraph node and the task that ran it.
	nested := byID[threadNested]
	require.Len(t, nested.Namespaces, 1)
	ns := nested.Namespaces[0]
	assert.Regexp(t, `^drafting:[0-9a-f-]{36}$`, ns.Namespace)
	assert.Equal(t, 5, ns.Checkpoints)
	assert.False(t, ns.Updated.IsZero())
	assert.False(t, ns.Updated.After(nested.Updated), "the subgraph finished before its parent's step")
	nested.Namespaces = none
	assert.Equal(t, threadRow{Thread: threadNested, Step: 2, Status: "done", Next: []string{}, Checkpoints: 4, Namespaces: none},
		withoutVolatile(nested))
}

func TestThreadsOfAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	db := emptyDB(t)
	r := onDB(t, db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "no threads in "+db+"\n", r.stdout)

	r = onDB(t, db, "-json", "threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.JSONEq(t, `[]`, r.stdout)
}

// withoutVolatile clears the fields of a row that differ from run to run.
func withoutVolatile(r threadRow) threadRow {
	r.Head, r.Updated = "", time.Time{}
	return r
}

// TestThreadsCountsOnlyVerifiedCheckpointsAndReportsDamage: with a middle
// checkpoint of one thread deleted, threads does not count the rows that
// are left as if nothing happened: the thread is "damaged", with what is
// wrong and the checkpoints verified before the damage; the others are
// listed as before, and the command exits 1.
func TestThreadsCountsOnlyVerifiedCheckpointsAndReportsDamage(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	raw, err := sql.Open("sqlite", db)
	require.NoError(t, err)
	_, err = raw.Exec(`DELETE FROM checkpoints WHERE thread_id = ?1 AND ns = '' AND id = (
	SELECT id FROM checkpoints WHERE thread_id = ?1 AND ns = '' ORDER BY id LIMIT 1 OFFSET 1)`, threadFailed)
	require.NoError(t, err)
	require.NoError(t, raw.Close())

	r := onDB(t, db, "threads")
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stderr, "1 of 5 threads damaged")
	var failed, done string
	for _, l := range lines(r.stdout) {
		switch strings.Fields(l)[0] {
		case threadFailed:
			failed = l
		case threadDone:
			done = l
		}
	}
	assert.Contains(t, failed, "damaged (")
	assert.Contains(t, failed, "is missing")
	assert.Regexp(t, `^done-1\s+3\s+done\s+5\s+0\s`, done)

	js := onDB(t, db, "-json", "threads")
	assert.Equal(t, 1, js.code)
	var rows []threadRow
	require.NoError(t, jsonUnmarshal(js.stdout, &rows), js.stdout)
	byID := map[string]threadRow{}
	for _, row := range rows {
		byID[row.Thread] = row
	}
	got := byID[threadFailed]
	assert.Equal(t, "damaged", got.Status)
	assert.Contains(t, got.Error, "checkpoint: corrupt data")
	assert.Less(t, got.Checkpoints, 3, "only checkpoints verified before the damage count, not the 3 rows left")
	assert.Equal(t, 5, byID[threadDone].Checkpoints)
}
