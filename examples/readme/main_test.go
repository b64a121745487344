package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
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

func TestRun(t *testing.T) {
	t.Parallel()
	saver, err := sqlite.Open(filepath.Join(t.TempDir(), "essays.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })
	essay, err := run(context.Background(), saver)
	require.NoError(t, err)
	require.Equal(t, Essay{Topic: "Go", Drafts: []string{"Go, draft 1", "Go, draft 2", "Go, draft 3"}}, essay)

	// The thread was saved: the input and three steps.
	n := 0
	for _, err := range saver.List(context.Background(), checkpoint.Config{ThreadID: "essay-1"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 4, n)
}
