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

func TestMain(m *testing.M) { clitest.Main(m, "timetravel", &bin) }

// result is what one run of the example printed, and its exit status.
type result = clitest.Result

// execute runs the example with args in the directory dir.
func execute(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return clitest.Run(t, bin, dir, "", args...)
}

func TestHelpPrintsTheUsageOnStdout(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"-h", "-help", "--help"} {
		dir := t.TempDir()
		r := execute(t, dir, h)
		assert.Equal(t, 0, r.Code, h)
		assert.Empty(t, r.Stderr, h)
		assert.Equal(t, usage, r.Stdout, h)
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
		{[]string{"-x"}, "timetravel: flag provided but not defined: -x\n"},
		{[]string{"extra"}, "timetravel: unexpected argument \"extra\"\n"},
	} {
		r := execute(t, t.TempDir(), tc.args...)
		assert.Equal(t, 2, r.Code, "%v", tc.args)
		assert.Empty(t, r.Stdout, "%v", tc.args)
		assert.Equal(t, tc.msg+usage, r.Stderr, "%v", tc.args)
	}
}

func TestTheProgramRuns(t *testing.T) {
	t.Parallel()
	r := execute(t, t.TempDir())
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Empty(t, r.Stderr)
	assert.True(t, strings.Contains(r.Stdout, "forked at"), r.Stdout)
}
