package main

import (
	"testing"

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
	linecount.RequireWithin(t, 2, "main.go", "testdata/langgraph.py")
}
