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
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Main builds the package of the current directory as name, sets *bin to
// the binary, runs the tests and exits with their status, removing the
// binary. Call it from TestMain.
func Main(m *testing.M, name string, bin *string) {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", *bin, ".")
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
