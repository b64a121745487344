package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/examples/internal/linecount"
)

// The parent's state, the child's three states as its nodes run (typed
// events of the child's own state type), the parent's result.
func Example_main() {
	main()
	// Output:
	// [] {Foo:foo}
	// [node_1] {Bar:foo}
	// [node_1] {Bar:foobaz}
	// [node_1] {Bar:foobaz!}
	// [] {Foo:foobaz!}
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
