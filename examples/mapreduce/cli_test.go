package main

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bin is the example, built once by TestMain, run by the tests as a
// user runs it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mapreduce-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "mapreduce")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mapreduce:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the example printed, and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// execute runs the example with args in the directory dir.
func execute(t *testing.T, dir string, args ...string) result {
	t.Helper()
	// A deadline turns a hung run into a failure that names it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "mapreduce %v did not finish", args)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

func TestHelpPrintsTheUsageOnStdout(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"-h", "-help", "--help"} {
		dir := t.TempDir()
		r := execute(t, dir, h)
		assert.Equal(t, 0, r.code, h)
		assert.Empty(t, r.stderr, h)
		assert.Equal(t, usage, r.stdout, h)
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
		{[]string{"-x"}, "mapreduce: flag provided but not defined: -x\n"},
		{[]string{"extra"}, "mapreduce: unexpected argument \"extra\"\n"},
	} {
		r := execute(t, t.TempDir(), tc.args...)
		assert.Equal(t, 2, r.code, "%v", tc.args)
		assert.Empty(t, r.stdout, "%v", tc.args)
		assert.Equal(t, tc.msg+usage, r.stderr, "%v", tc.args)
	}
}

func TestTheProgramRuns(t *testing.T) {
	t.Parallel()
	r := execute(t, t.TempDir())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.True(t, strings.Contains(r.stdout, "top words: better 2, errors 2, little 2, memory 2, than 2\n"), r.stdout)
}
