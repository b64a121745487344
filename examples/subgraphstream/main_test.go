package main

import (
	"testing"

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
	linecount.RequireWithin(t, 2, "main.go", "testdata/langgraph.py")
}
