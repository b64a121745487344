package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/stategraph/stategraph/examples/internal/linecount"
)

// The program asks before the tool runs, then answers with its result.
func Example_main() {
	main()
	// Output:
	// asks: {MessageID:msg-77e13afc3a99790a Calls:[{ID:call-1 Tool:get_weather Args:{"city":"Paris"}}]}
	// The tool says: It is sunny in Paris.
}

// The program leaves no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The program stays within twice the lines of LangGraph Python's
// (docs/langgraph.md says how lines are counted).
func TestProgramIsAtMostTwiceLangGraphs(t *testing.T) {
	t.Parallel()
	linecount.RequireWithin(t, 2, "main.go", "testdata/langgraph.py")
}
