// Package clitest runs an example as a user does: built once into a
// temporary directory by the test binary's TestMain, then run with
// arguments, standard input and a working directory, its output and exit
// status returned.
package clitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Main builds the package of the current directory as name, sets *bin to
// the binary, runs the tests and exits with their status, removing the
// binary. Call it from TestMain.
func Main(m *testing.M, name string, bin *string) { buildAndRun(m, name, bin, false) }

// MainRace is Main building the program with the race detector when the
// tests run with it, for examples whose tests exercise their concurrency
// (signals, parallel tools).
func MainRace(m *testing.M, name string, bin *string) { buildAndRun(m, name, bin, raceEnabled) }

func buildAndRun(m *testing.M, name string, bin *string, race bool) {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, name)
	args := []string{"build", "-o", *bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n", name, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Result is what one run printed, and its exit status.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs bin with args in dir, stdin on its standard input. A run that
// does not end within a minute fails the test, naming it.
func Run(t *testing.T, bin, dir, stdin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s %v did not finish", filepath.Base(bin), args)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s %v: %v", filepath.Base(bin), args, err)
	}
	return Result{stdout.String(), stderr.String(), code}
}

// CheckHelp runs bin with -h, -help and --help, each in an empty
// directory: each prints exactly usage on stdout, nothing on stderr, exits
// 0 and writes no file.
func CheckHelp(t *testing.T, bin, usage string) {
	t.Helper()
	for _, h := range []string{"-h", "-help", "--help"} {
		dir := t.TempDir()
		r := Run(t, bin, dir, "", h)
		assert.Equal(t, 0, r.Code, h)
		assert.Empty(t, r.Stderr, h)
		assert.Equal(t, usage, r.Stdout, h)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "%s runs nothing and writes no file", h)
	}
}

// CheckBadCommandLines runs bin, a program that takes no flags and no
// arguments, with an unknown flag and with an argument: each exits 2,
// prints nothing on stdout, and prints the error, named after the
// program, then usage on stderr.
func CheckBadCommandLines(t *testing.T, bin, usage string) {
	t.Helper()
	name := filepath.Base(bin)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-x"}, name + ": flag provided but not defined: -x\n"},
		{[]string{"extra"}, name + ": unexpected argument \"extra\"\n"},
	} {
		r := Run(t, bin, t.TempDir(), "", tc.args...)
		assert.Equal(t, 2, r.Code, "%v", tc.args)
		assert.Empty(t, r.Stdout, "%v", tc.args)
		assert.Equal(t, tc.msg+usage, r.Stderr, "%v", tc.args)
	}
}

// Command prepares bin with args in dir, in the test's environment without
// the variables whose names start with one of drop (the settings the
// program reads, so the developer's own cannot change a test). It is
// killed if it runs for more than a minute. Run it with Execute, or start
// it to signal it.
func Command(t *testing.T, bin, dir string, drop []string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = Env(drop)
	return cmd
}

// Env is the test's environment without the variables whose names start
// with one of drop.
func Env(drop []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(drop, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			out = append(out, kv)
		}
	}
	return out
}

// Execute runs the prepared cmd with stdin on its standard input and
// returns what it printed and its exit status.
func Execute(t *testing.T, cmd *exec.Cmd, stdin string) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	return Result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}
