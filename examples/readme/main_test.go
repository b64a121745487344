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

	// The thread was saved: the input, the input applied and three steps.
	n := 0
	for _, err := range saver.List(context.Background(), checkpoint.Config{ThreadID: "essay-1"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 5, n)
}

// The program keeps its database in the working directory, so the thread
// the README talks about can be inspected; a second run starts the thread
// afresh instead of drafting on top of the first.
func TestProgramKeepsTheThreadInEssaysDB(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx := context.Background()
	for range 2 {
		var out strings.Builder
		require.NoError(t, program(ctx, db, &out))
		require.Equal(t, "[Go, draft 1 Go, draft 2 Go, draft 3]\n"+
			"Thread essay-1 is saved in essays.db. To see its checkpoints:\n"+
			"  go run ./cmd/stategraph -db essays.db history essay-1\n", out.String())
	}
	require.FileExists(t, "essays.db")
	saver, err := sqlite.Open("essays.db")
	require.NoError(t, err)
	t.Cleanup(func() { _ = saver.Close() })
	n := 0
	for _, err := range saver.List(ctx, checkpoint.Config{ThreadID: "essay-1"}, checkpoint.ListOptions{}) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 5, n, "the input, the input applied and three steps, of the second run only")
}
