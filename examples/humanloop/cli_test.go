package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/clitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bin is the example, built once by TestMain, run by the tests as a
// user runs it.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "humanloop", &bin) }

// result is what one run of the example printed, and its exit status.
type result = clitest.Result

// execute runs the example with args in dir, stdin on its standard input.
func execute(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return clitest.Run(t, bin, dir, stdin, args...)
}

func TestHelpPrintsTheUsageOnStdout(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"-h", "-help", "--help"} {
		dir := t.TempDir()
		r := execute(t, dir, "", h)
		assert.Equal(t, 0, r.Code, h)
		assert.Empty(t, r.Stderr, h)
		assert.True(t, strings.HasPrefix(r.Stdout, usage+"\nFlags:\n"), r.Stdout)
		for _, f := range []string{"-stdin", "-db PATH", "-stop", "-resume"} {
			assert.Contains(t, r.Stdout, "\n  "+f+"\n", h)
		}
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "%s runs nothing and writes no file", h)
	}
}

func TestBadCommandLinesExitTwoWithTheUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-x"}, "humanloop: flag provided but not defined: -x\n"},
		{[]string{"extra"}, "humanloop: unexpected argument \"extra\"\n"},
		{[]string{"-stop"}, "humanloop: -stop and -resume need -db PATH: a thread in memory ends with its process\n"},
		{[]string{"-resume", "-stdin"}, "humanloop: -stop and -resume need -db PATH"},
		{[]string{"-db", "t.db", "-stop", "-resume"}, "humanloop: -stop and -resume do not go together"},
	} {
		r := execute(t, t.TempDir(), "", tc.args...)
		assert.Equal(t, 2, r.Code, "%v", tc.args)
		assert.Empty(t, r.Stdout, "%v", tc.args)
		assert.True(t, strings.HasPrefix(r.Stderr, tc.msg), "%v: %s", tc.args, r.Stderr)
		assert.Contains(t, r.Stderr, usage, "%v", tc.args)
	}
}

func TestTheScriptedReviewRuns(t *testing.T) {
	t.Parallel()
	r := execute(t, t.TempDir(), "")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, "sent after 2 drafts: Dear Ada")
}

// -stop leaves the question in the file; a new process answers it with
// -resume, and the run goes on where it stopped: the draft is not
// written again.
func TestANewProcessResumesTheQuestion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := execute(t, dir, "", "-db", "ticket.db", "-stop")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Equal(t, "paused in review at step 2: Send this reply?\n"+
		"  Dear Ada, we are sorry order O1001 arrived damaged; we refund 120 to your card.\n"+
		"stopped: the question waits in ticket.db. To answer it from another process:\n"+
		"  go run ./examples/humanloop -db ticket.db -resume\n", r.Stdout)

	// Starting over would lose the question: refused.
	again := execute(t, dir, "", "-db", "ticket.db")
	assert.Equal(t, 2, again.Code)
	assert.Contains(t, again.Stderr, "thread ticket-42 in the database is not finished: go on with -resume")

	r = execute(t, dir, "", "-db", "ticket.db", "-resume")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.True(t, strings.HasPrefix(r.Stdout, "resuming thread ticket-42 from the database: it waits in review at step 2\n"+
		"paused in review at step 2: Send this reply?\n"), r.Stdout)
	assert.Contains(t, r.Stdout, "reviewer: no\npaused in review at step 2: What should change?\nreviewer: the refund reaches your card within 3 days\n")
	assert.Contains(t, r.Stdout, "sent after 2 drafts: Dear Ada, we are sorry order O1001 arrived damaged; we refund 120 to your card. The refund reaches your card within 3 days.\n")

	// Nothing waits any more.
	r = execute(t, dir, "", "-db", "ticket.db", "-resume")
	assert.Equal(t, 2, r.Code)
	assert.Contains(t, r.Stderr, "humanloop: nothing to resume: thread ticket-42 waits on no question: its reply was sent")
	// A new ticket starts afresh on the same file.
	r = execute(t, dir, "", "-db", "ticket.db")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, "sent after 2 drafts")

	r = execute(t, t.TempDir(), "", "-db", "none.db", "-resume")
	assert.Equal(t, 2, r.Code)
	assert.Contains(t, r.Stderr, "nothing to resume: no thread ticket-42 in the database (start it without -resume)")
}

// With -stdin and -db, the end of the input stops at the question, with
// the answers given so far kept; a new process answers the rest, and an
// empty note there is refused with the reason.
func TestEndOfInputStopsAndAnotherProcessAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := execute(t, dir, "n\n", "-db", "ticket.db", "-stdin")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, "reviewer: no\npaused in review at step 2: What should change?\nyour answer: \nstopped: the question waits in ticket.db.")

	r = execute(t, dir, "\n  \nsign it\ny\n", "-db", "ticket.db", "-stdin", "-resume")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.True(t, strings.HasPrefix(r.Stdout, "resuming thread ticket-42 from the database: it waits in review at step 2\n"+
		"paused in review at step 2: What should change?\n"), "the no given by the first process holds: %s", r.Stdout)
	assert.Equal(t, 2, strings.Count(r.Stdout, "paused in review at step 2: "+emptyNote+"\n"), r.Stdout)
	assert.Contains(t, r.Stdout, "sent after 2 drafts: Dear Ada, we are sorry order O1001 arrived damaged; we refund 120 to your card. Sign it.\n")

	// The scripted reviewer cannot answer a question in words with its
	// first answer, a no: it says so.
	dir = t.TempDir()
	require.Equal(t, 0, execute(t, dir, "n\n", "-db", "ticket.db", "-stdin").Code)
	r = execute(t, dir, "", "-db", "ticket.db", "-resume")
	assert.Equal(t, 1, r.Code)
	assert.Contains(t, r.Stderr, `humanloop: the script's next answer, "no", does not answer "What should change?" (answer it with -stdin)`)
}
