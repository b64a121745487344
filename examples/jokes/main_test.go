package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/examples/internal/linecount"
)

// The map-reduce picks the best of the sent jokes; the fork of the step
// before the join adds a longer one, and the join picks it.
func Example_main() {
	main()
	// Output:
	// A joke about cats at work <nil>
	// A much longer joke about cats <nil>
}

// The program leaves no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The program stays within twice the lines of LangGraph Python's
// (docs/langgraph.md says how lines are counted).
func TestProgramIsAtMostTwiceLangGraphs(t *testing.T) {
	t.Parallel()
	ours, err := linecount.File("main.go")
	require.NoError(t, err)
	theirs, err := linecount.File("testdata/langgraph.py")
	require.NoError(t, err)
	t.Logf("main.go %d lines, LangGraph Python %d", ours, theirs)
	require.LessOrEqual(t, ours, 2*theirs)
}
