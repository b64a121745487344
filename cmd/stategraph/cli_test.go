package main

import (
	"bytes"
	"context"
	"encoding/json"
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

// binary is the stategraph command TestMain builds, run by the tests as a
// user would run it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stategraph-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "stategraph")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build stategraph:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the command printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the built command with args and the environment variables env
// (KEY=VALUE) on top of a clean one.
func cli(t *testing.T, env []string, args ...string) result {
	t.Helper()
	// A deadline turns a hung command into a failure that names it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TZ=UTC"}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("stategraph %v did not finish within a minute: %v", args, err)
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// onDB runs the command on the SQLite database at path.
func onDB(t *testing.T, path string, args ...string) result {
	t.Helper()
	return cli(t, nil, append([]string{"-db", path}, args...)...)
}

// decode runs the command with -json, checks it succeeded and decodes its
// output into v.
func decode[T any](t *testing.T, db string, args ...string) T {
	t.Helper()
	r := onDB(t, db, append([]string{"-json"}, args...)...)
	require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	require.Empty(t, r.stderr)
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
	return v
}

// lines splits output into its lines, without the final newline.
func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
