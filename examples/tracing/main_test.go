package main

import (
	"os/exec"
	"testing"

	"github.com/stategraph/stategraph/examples/internal/clitest"
	"github.com/stategraph/stategraph/examples/internal/planexec"
)

// bin is the example, built once by TestMain, run by the tests as a user
// would run it.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "tracing", &bin) }

// The program's exit codes.
const (
	exitOK       = planexec.ExitOK
	exitDeclined = planexec.ExitDeclined
)

// dropEnv are the prefixes of the variables the example reads, kept out of
// its environment in the tests.
var dropEnv = []string{"OPENAI_", "OLLAMA_", "PLANEXECUTE_", "OTEL_"}

// env is the test's environment without the variables the example reads,
// plus extra.
func env(extra ...string) []string { return append(clitest.Env(dropEnv), extra...) }

// command prepares the example in dir; it is killed if the test runs too long.
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	return clitest.Command(t, bin, dir, dropEnv, args...)
}

// execute runs the prepared command with stdin and returns its output and exit status.
func execute(t *testing.T, cmd *exec.Cmd, stdin string) clitest.Result {
	t.Helper()
	return clitest.Execute(t, cmd, stdin)
}
