package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWordCount(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	c, err := run(context.Background(), Proverbs, &out)
	require.NoError(t, err)
	require.Equal(t, Proverbs, c.Counted, "writes applied in Send order, whatever order the tasks finished in")
	require.Equal(t, []string{"better 2", "errors 2", "little 2", "memory 2", "than 2"}, c.Top)
	require.Equal(t, 2, c.Counts["memory"])
	require.Equal(t, 1, c.Counts["concurrency"])
	require.Equal(t, len(Proverbs), strings.Count(out.String(), "step 1  count"), "every map task in one step")
	require.Equal(t, 1, strings.Count(out.String(), "step 2  rank"), "the reduce node runs once")
}

func TestWordCountOfNoDocuments(t *testing.T) {
	t.Parallel()
	c, err := run(context.Background(), nil, &strings.Builder{})
	require.NoError(t, err)
	require.Empty(t, c.Counted)
	require.Empty(t, c.Top)
}

func TestAddCountsDoesNotChangeItsInput(t *testing.T) {
	t.Parallel()
	old := map[string]int{"go": 1}
	got := addCounts(old, map[string]int{"go": 2, "gopher": 1})
	require.Equal(t, map[string]int{"go": 3, "gopher": 1}, got)
	require.Equal(t, map[string]int{"go": 1}, old)
}
