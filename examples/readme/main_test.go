package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's quickstart is this file's marked region, line for line.
func TestReadmeQuickstartIsThisProgram(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "## Quickstart")
	require.True(t, ok, "README has a Quickstart section")
	_, block, ok := strings.Cut(after, "```go\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)

	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	_, region, _ := strings.Cut(string(src), "// README:begin\n")
	region, _, _ = strings.Cut(region, "// README:end")
	require.Equal(t, strings.TrimSpace(region), strings.TrimSpace(block))
}

// TestRun swaps os.Stdout, so it does not run in parallel.
func TestRun(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	err = run(context.Background(), filepath.Join(t.TempDir(), "essays.db"))
	os.Stdout = old
	require.NoError(t, w.Close())
	require.NoError(t, err)
	var out bytes.Buffer
	_, _ = io.Copy(&out, r)
	require.Contains(t, out.String(), "[Go, draft 1 Go, draft 2 Go, draft 3]")
	require.Contains(t, out.String(), "\twrite -.-> write;")
}
