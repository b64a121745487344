package main

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/clitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bin is the example, built once by TestMain, run by the tests as a
// user runs it.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "readme", &bin) }

// result is what one run of the example printed, and its exit status.
type result = clitest.Result

// execute runs the example with args in the directory dir.
func execute(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return clitest.Run(t, bin, dir, "", args...)
}

func TestHelpPrintsTheUsageOnStdout(t *testing.T) {
	t.Parallel()
	clitest.CheckHelp(t, bin, usage)
}

func TestBadCommandLinesExitTwoWithTheUsage(t *testing.T) {
	t.Parallel()
	clitest.CheckBadCommandLines(t, bin, usage)
}

func TestTheProgramRuns(t *testing.T) {
	t.Parallel()
	r := execute(t, t.TempDir())
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Empty(t, r.Stderr)
	assert.True(t, strings.Contains(r.Stdout, "Thread essay-1 is saved in essays.db. To see its checkpoints:\n"), r.Stdout)
}
