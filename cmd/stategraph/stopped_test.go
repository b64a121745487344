package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
)

// unfinished is what is left of the next step of the stopped threads: plan
// sent three execute tasks and the first finished before the stop, so two
// run on resume (as the runtime's State().Next says).
var unfinished = []string{"execute", "execute"}

func TestCtrlCMidStepLeavesTheThreadPending(t *testing.T) {
	t.Parallel()
	db := stoppedDB(t)

	r := onDB(t, db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^stopped-1\s+1\s+pending execute\s+3\s+0\s`, r.stdout)
	assert.NotContains(t, r.stdout, "error")

	rows := decode[[]threadRow](t, db, "threads")
	require.Len(t, rows, 2)
	row := rows[1]
	require.Equal(t, threadStopped, row.Thread)
	assert.Equal(t, threadRow{Thread: threadStopped, Step: 1, Status: inspect.StatePending, Next: unfinished, Checkpoints: 3, Namespaces: []namespaceRow{}},
		withoutVolatile(row), "nothing recorded: no error, no cancellation")

	v := decode[stateView](t, db, "state", threadStopped)
	assert.Equal(t, inspect.StatePending, v.Status)
	assert.Equal(t, unfinished, v.Next)
	assert.Empty(t, v.Errors)
	assert.Empty(t, v.Cancelled)
	require.Len(t, v.Sends, 3)
	for i, s := range v.Sends {
		assert.Equal(t, "execute", s.Node)
		assert.JSONEq(t, `"`+sentTopics[i]+`"`, string(s.Arg["topic"]))
	}
	r = onDB(t, db, "state", threadStopped)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^status\s+pending execute$`, r.stdout)
	assert.Regexp(t, `(?m)^next\s+execute, execute$`, r.stdout)
	assert.NotContains(t, r.stdout, "task errors:")
	assert.NotContains(t, r.stdout, "cancelled")
}

func TestCancelledTaskErrorsOfOlderVersionsArePending(t *testing.T) {
	t.Parallel()
	db := stoppedDB(t)

	r := onDB(t, db, "threads")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^stopped-old-1\s+1\s+pending execute \(cancelled\)\s+3\s+0\s`, r.stdout)
	assert.NotContains(t, r.stdout, "error")

	rows := decode[[]threadRow](t, db, "threads")
	require.Len(t, rows, 2)
	row := rows[0]
	require.Equal(t, threadStoppedOld, row.Thread)
	assert.Equal(t, threadRow{Thread: threadStoppedOld, Step: 1, Status: inspect.StatePending, Next: unfinished, Cancelled: true, Checkpoints: 3, Namespaces: []namespaceRow{}},
		withoutVolatile(row))

	v := decode[stateView](t, db, "state", threadStoppedOld)
	assert.Equal(t, inspect.StatePending, v.Status)
	assert.Equal(t, unfinished, v.Next)
	assert.Empty(t, v.Errors, "a cancellation is not a task error")
	require.Len(t, v.Cancelled, 2, "the two tasks that were stopped")
	for _, c := range v.Cancelled {
		assert.Equal(t, "execute", c.Node)
		assert.True(t, strings.HasSuffix(c.Error, "call the service: context canceled"), c.Error)
		assert.NotEmpty(t, c.TaskID)
	}
	r = onDB(t, db, "state", threadStoppedOld)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^status\s+pending execute \(cancelled\)$`, r.stdout)
	assert.NotContains(t, r.stdout, "task errors:")
	assert.Regexp(t, `(?m)^cancelled tasks \(pending: they run again on resume\):\nNODE\s+ERROR\s+TASK\nexecute\s+.*context canceled\s+`+v.Cancelled[0].TaskID+`$`, r.stdout)
}

func TestThreadsAndStateListTheSameNextTasks(t *testing.T) {
	t.Parallel()
	db := everyThreadDB(t)
	rows := decode[[]threadRow](t, db, "threads")
	require.Len(t, rows, 7)
	for _, row := range rows {
		v := decode[stateView](t, db, "state", row.Thread)
		assert.Equal(t, v.Next, row.Next, row.Thread)
	}
}

// The doc's jq recipe for the threads that need attention finds the
// failed, interrupted and stopped ones, whatever version stopped them.
func TestDocsAttentionRecipeFindsStoppedThreads(t *testing.T) {
	t.Parallel()
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed")
	}
	doc, err := os.ReadFile("../../docs/inspector.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)# the threads that need attention.*?\| jq -r '([^']+)'`).FindSubmatch(doc)
	require.NotNil(t, m, "docs/inspector.md has the recipe")

	db := everyThreadDB(t)
	threads := onDB(t, db, "-json", "threads")
	require.Equal(t, 0, threads.code, threads.stderr)
	cmd := exec.CommandContext(t.Context(), jq, "-r", string(m[1]))
	cmd.Stdin = strings.NewReader(threads.stdout)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), out.String())
	assert.ElementsMatch(t, []string{threadFailed, threadInterrupted, threadPaused, threadStopped, threadStoppedOld}, lines(out.String()))
}
